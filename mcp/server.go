package mcp

import (
	"context"
	"log/slog"
	"slices"
	"sync"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/action/dispatch"
	"github.com/turnzerocloud/tzctx/schemas"
)

// Options configure a Server.
type Options struct {
	// Version is the server version initialize reports.
	Version string
	// TextMaxLimit is the limit a resource read pages with, the
	// contract's text_max_limit.
	TextMaxLimit int
	// IDMaxLength is the contract's id_max_length, from which the bound
	// of a resources/read URI derives; 0 means 160.
	IDMaxLength int
	// LineLimit bounds one stdio message in bytes, as body_limit_bytes
	// bounds an HTTP body; 0 means 1 MiB.
	LineLimit int64
	// Logger receives the front end's own lines; nil means slog.Default().
	Logger *slog.Logger
	// SiteName is the site's public name, which initialize's title and
	// instructions name; "" means the contract's,
	// schemas.DefaultSiteName.
	SiteName string
	// Site is what the contract's texts say of the site: its name (""
	// takes SiteName) and the trees it serves, nil for the contract's
	// own, from which the texts a caller is answered draw their examples.
	Site schemas.Site
	// SubscriptionsPerSession and SubscriptionsTotal bound the resource
	// subscriptions of one session and of all; 0 means
	// DefaultSubscriptionsPerSession, DefaultSubscriptionsTotal.
	SubscriptionsPerSession, SubscriptionsTotal int
	// NoticesPerMinute bounds the log notices (notifications/message)
	// one session is sent in a minute; 0 means DefaultNoticesPerMinute.
	NoticesPerMinute int
	// InstructionsMaxChars bounds the server instructions in code
	// points; 0 means DefaultInstructionsMaxChars.
	InstructionsMaxChars int
	// Completions bound the work of one completion/complete; a bound
	// left at 0 takes its default (CompletionBounds).
	Completions CompletionBounds
}

// Server is the MCP front end over one dispatcher. Its lists are computed
// per call for the caller of each request.
type Server struct {
	d     Dispatcher
	mcp   *server.MCPServer
	log   *slog.Logger
	limit int
	// bounds hold messages before mcp-go reads them.
	bounds msgBounds
	// actions are the registered actions by name, whose access the tool
	// filter reads.
	actions map[string]*dispatch.Action
	// treeTools are the input schemas, per tool whose request names a
	// tree, that the tool filter narrows to the caller's trees.
	treeTools map[string]*treeSchemas
	// versions holds each stdio session's negotiated protocol version;
	// an HTTP request carries its own in a header.
	versions sync.Map
	// feat holds each session's log level, notices and subscriptions.
	feat *features
	// site is Options.Site, its name filled in.
	site schemas.Site
	// instructionsMax is Options.InstructionsMaxChars, its default
	// filled in.
	instructionsMax int
	// libraryPrompts are the prompts of the library's skills, and
	// libraryItems the catalog entries of the library (isLibraryItem),
	// offered only where the served version holds a library.
	libraryPrompts, libraryItems map[string]bool
}

// New returns the MCP front end of d.
func New(d Dispatcher, opts Options) (*Server, error) {
	s := &Server{feat: newFeatures(opts), log: opts.Logger, limit: opts.TextMaxLimit, bounds: newMsgBounds(opts), actions: map[string]*dispatch.Action{}, treeTools: map[string]*treeSchemas{}, libraryPrompts: map[string]bool{}, libraryItems: map[string]bool{}}
	// Every call goes through the notices: a refusal is also told to
	// the calling session, where it asked for notices.
	s.d = noticeDispatcher{Dispatcher: d, s: s}
	d = s.d
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.limit <= 0 {
		s.limit = 16000
	}
	s.instructionsMax = opts.InstructionsMaxChars
	if s.instructionsMax <= 0 {
		s.instructionsMax = DefaultInstructionsMaxChars
	}
	s.site = opts.Site
	if s.site.Name == "" {
		s.site.Name = opts.SiteName
	}
	if s.site.Name == "" {
		s.site.Name = schemas.DefaultSiteName
	}
	hooks := &server.Hooks{}
	hooks.AddAfterInitialize(func(ctx context.Context, _ any, _ *mcpgo.InitializeRequest, res *mcpgo.InitializeResult) {
		if res == nil {
			return
		}
		if cs, ok := server.ClientSessionFromContext(ctx).(*stdioSession); ok {
			s.versions.Store(cs.SessionID(), res.ProtocolVersion)
		}
		res.Instructions = s.instructions(ctx)
	})
	hooks.AddAfterDiscover(func(ctx context.Context, _ any, _ *mcpgo.DiscoverRequest, res *mcpgo.DiscoverResult) {
		if res != nil {
			res.Instructions = s.instructions(ctx)
		}
	})
	hooks.AddOnUnregisterSession(func(_ context.Context, cs server.ClientSession) {
		s.versions.Delete(cs.SessionID())
	})
	s.addFeatureHooks(hooks)
	hooks.AddAfterListResources(func(ctx context.Context, _ any, _ *mcpgo.ListResourcesRequest, res *mcpgo.ListResourcesResult) {
		if res != nil {
			res.Resources = s.resources(ctx)
			res.NextCursor = ""
		}
	})
	hooks.AddAfterListResourceTemplates(func(ctx context.Context, _ any, _ *mcpgo.ListResourceTemplatesRequest, res *mcpgo.ListResourceTemplatesResult) {
		if res != nil {
			s.templatesFor(ctx, res.ResourceTemplates)
		}
	})
	version := opts.Version
	if version == "" {
		version = "dev"
	}
	name := s.site.Name
	s.mcp = server.NewMCPServer("tzctx", version,
		server.WithTitle(name+" served context"),
		// Each initialize and server/discover answer replaces these
		// with what is served to its caller (instructions).
		server.WithInstructions(instructionsText(name, nil, false, s.instructionsMax)),
		server.WithToolCapabilities(true),
		server.WithResourceCapabilities(true, true),
		server.WithPromptCapabilities(true),
		server.WithLogging(),
		server.WithCompletions(),
		server.WithPromptCompletionProvider(completer{s, opts.Completions.withDefaults()}),
		server.WithResourceCompletionProvider(completer{s, opts.Completions.withDefaults()}),
		server.WithHooks(hooks),
		server.WithToolFilter(s.filterTools),
		server.WithPromptFilter(s.filterPrompts),
		server.WithRecovery(),
	)
	for _, a := range d.Actions() {
		if a.Admin() {
			// The operator actions are HTTP alone: an agent is offered
			// no tool it cannot call.
			continue
		}
		tool, handle, err := ActionTool(d, a)
		if err != nil {
			return nil, err
		}
		s.actions[a.Name] = a
		if ts := newTreeSchemas(a.Request); ts != nil {
			s.treeTools[a.Name] = ts
		}
		s.mcp.AddTool(tool, handle)
	}
	for _, t := range s.templates() {
		s.mcp.AddResourceTemplate(t.Template, t.Handler)
	}
	for _, it := range d.CatalogItems() {
		if isLibraryItem(it.ID, it.Actions) {
			s.libraryItems[it.ID] = true
		}
	}
	for _, p := range s.prompts(d.CatalogItems()) {
		s.mcp.AddPrompt(p.Prompt, p.Handler)
	}
	return s, nil
}

// MCPServer returns the mcp-go server, for an in-process client.
func (s *Server) MCPServer() *server.MCPServer { return s.mcp }

// ListsChanged tells every connected client, on both transports, that
// the resource, prompt and tool lists may have changed: a version was
// activated, and a tool's tree enumeration lists the served version's
// trees. It then tells each session that asked for notices of the
// switch, and each subscriber of a resource whose text changed that it
// was updated (versionSwitched).
func (s *Server) ListsChanged() {
	s.mcp.SendNotificationToAllClients(string(mcpgo.MethodNotificationToolsListChanged), nil)
	s.mcp.SendNotificationToAllClients(string(mcpgo.MethodNotificationResourcesListChanged), nil)
	s.mcp.SendNotificationToAllClients(string(mcpgo.MethodNotificationPromptsListChanged), nil)
	s.versionSwitched()
}

// filterTools lists the tools whose action this caller may list: an
// anonymous action to anyone, any other to a signed-in caller,
// the library's only where the served version holds a library entry it
// may read, a tree enumeration narrowed to the trees it can read
// (withTrees).
func (s *Server) filterTools(ctx context.Context, tools []mcpgo.Tool) []mcpgo.Tool {
	id := tzctx.IdentityFrom(ctx)
	var out []mcpgo.Tool
	lib, asked := false, false
	for _, t := range tools {
		a := s.actions[t.Name]
		if a == nil || (a.Access != "anonymous" && id.Anonymous()) {
			continue
		}
		if slices.Contains(libraryActions, t.Name) {
			if !asked {
				_, lib = s.served(ctx, "tools/list")
				asked = true
			}
			if !lib {
				continue
			}
		}
		out = append(out, t)
	}
	return s.withTrees(ctx, out)
}

// WithCaller returns ctx carrying a caller's bearer credential ("" for
// none), for the dispatcher to resolve, and the identity it resolved to,
// for the lists' filters.
func WithCaller(ctx context.Context, bearer string, id tzctx.Identity) context.Context {
	return tzctx.WithIdentity(tzctx.WithCredential(ctx, bearer), id)
}
