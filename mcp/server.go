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
	// own, from which the texts a caller is answered draw their examples;
	// where Texts is nil.
	Site schemas.Site
	// Texts give the served texts of the version served now, which the
	// tools' descriptions and input schemas, the prompts, the
	// instructions and the example routes follow; nil serves Site's
	// alone, with no prompt.
	Texts Texts
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
	// Trees tell the trees served, for the caller of each request; nil
	// tells the contract's trees (tzctx.DefaultTrees), with no title,
	// description, page or summary.
	Trees TreeReader
}

// Server is the MCP front end over one dispatcher. Its lists are computed
// per call for the caller of each request.
type Server struct {
	d     Caller
	trees TreeReader
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
	// texts are Options.Texts, or Options.Site's where none.
	texts Texts
	// tools hold the tools' texts of the site served last.
	tools toolTextsHolder
	// instructionsMax is Options.InstructionsMaxChars, its default
	// filled in.
	instructionsMax int
	// version and title are the server's version and the title it was
	// built with, which mcp-go reports unless stampServerInfo names the
	// site otherwise.
	version, title string
	// libraryPrompts are the prompts of the library's skills, and
	// libraryItems the catalog entries of the library (isLibraryItem),
	// offered only where the served version holds a library.
	libraryPrompts, libraryItems map[string]bool
}

// New returns the MCP front end of d, telling the trees opts.Trees
// tells.
func New(d Caller, opts Options) (*Server, error) {
	s := &Server{trees: opts.Trees, feat: newFeatures(opts), log: opts.Logger, limit: opts.TextMaxLimit, bounds: newMsgBounds(opts), actions: map[string]*dispatch.Action{}, treeTools: map[string]*treeSchemas{}, libraryPrompts: map[string]bool{}, libraryItems: map[string]bool{}}
	// Every call goes through the notices: a refusal is also told to
	// the calling session, where it asked for notices.
	s.d = noticeDispatcher{Caller: d, s: s}
	d = s.d
	if s.trees == nil {
		s.trees = contractTrees{}
	}
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
	s.texts = opts.Texts
	if s.texts == nil {
		site := opts.Site
		if site.Name == "" {
			site.Name = opts.SiteName
		}
		s.texts = FixedTexts{Site: site}
	}
	start := s.siteTexts()
	hooks := &server.Hooks{}
	hooks.AddAfterInitialize(func(ctx context.Context, _ any, _ *mcpgo.InitializeRequest, res *mcpgo.InitializeResult) {
		if res == nil {
			return
		}
		if cs, ok := server.ClientSessionFromContext(ctx).(*stdioSession); ok {
			s.versions.Store(cs.SessionID(), res.ProtocolVersion)
		}
		res.Instructions = s.instructions(ctx)
		// The site's name follows the served version where no name is
		// configured (schemas.NameOf).
		res.ServerInfo.Title = s.siteTitle()
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
	name := start.Site.Name
	s.version, s.title = version, name+" served context"
	hooks.AddOnSuccess(func(ctx context.Context, _ any, _ mcpgo.MCPMethod, _ any, result any) {
		s.stampServerInfo(ctx, result)
	})
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
	for _, t := range s.templates(start.Site) {
		s.mcp.AddResourceTemplate(t.Template, t.Handler)
	}
	for _, it := range start.Items {
		if isLibraryItem(it.ID, it.Actions) {
			s.libraryItems[it.ID] = true
		}
	}
	for _, p := range s.prompts(start.Items) {
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
	texts := s.siteTexts()
	tt := s.toolTextsOf(texts)
	s.withToolTexts(tt, out)
	return s.withTrees(ctx, out, texts.Site, tt)
}

// WithCaller returns ctx carrying a caller's bearer credential ("" for
// none), for the dispatcher to resolve, and the identity it resolved to,
// for the lists' filters.
func WithCaller(ctx context.Context, bearer string, id tzctx.Identity) context.Context {
	return tzctx.WithIdentity(tzctx.WithCredential(ctx, bearer), id)
}

// siteTitle is the server's title as the texts served now name the site.
func (s *Server) siteTitle() string { return s.siteTexts().Site.Name + " served context" }

// stampServerInfo names the site as the texts served now do in a result's
// _meta serverInfo, which mcp-go fills, from protocol version 2026-07-28
// on, with the title the server was built with: where no site name is
// configured, the name follows the served version (schemas.NameOf). A
// result of an earlier protocol version carries no _meta and is left as
// it is, as is one whose title is the one built with.
func (s *Server) stampServerInfo(ctx context.Context, result any) {
	info := server.RequestProtocolInfoFromContext(ctx)
	if info == nil || !info.Modern {
		return
	}
	m, ok := result.(mcpgo.ResultMetadata)
	if !ok {
		return
	}
	if title := s.siteTitle(); title != s.title {
		m.EnsureResultMeta().SetServerInfo(mcpgo.Implementation{Name: "tzctx", Version: s.version, Title: title})
	}
}
