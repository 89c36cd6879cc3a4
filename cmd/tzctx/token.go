package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/turnzerocloud/tzctx/internal/ops/identity"
)

func newTokenCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "token",
		Short: "Make bearer tokens for the configuration's credentials",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newTokenNewCmd())
	return cmd
}

func newTokenNewCmd() *cobra.Command {
	var cred identity.Credential
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "new",
		Example: "  tzctx token new --account acme --application docs-agent --profile blueprint",
		Short:   "Print a fresh random token and the credential line that names it",
		Long: `Print a fresh random bearer token, once, and the credential to add to the
"credentials" array of the configuration: the token's SHA-256 and whom it
names. Hand the token to its caller; it is stored nowhere, and the
configuration holds only its digest. With --json, one JSON object
{"token": ..., "credential": {...}} is printed instead, for scripts.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch {
			case cred.Account == "":
				return errors.New("--account is required: name the account the credential belongs to")
			case cred.Application == "":
				return errors.New("--application is required: name the application that will present the token")
			}
			for _, p := range cred.Profiles {
				if p == "" {
					return errors.New("--profile: is empty; name a product profile such as blueprint")
				}
			}
			if cred.Profiles == nil {
				cred.Profiles = []string{}
			}
			token, named, err := identity.NewToken(cred)
			if err != nil {
				return err
			}
			return printToken(cmd.OutOrStdout(), token, named, asJSON)
		},
	}
	f := cmd.Flags()
	f.StringVar(&cred.Account, "account", "", "account the credential belongs to (required)")
	f.StringVar(&cred.Application, "application", "", "application that presents the token (required)")
	f.StringArrayVar(&cred.Profiles, "profile", nil, "product profile the account holds, such as blueprint (repeatable)")
	f.BoolVar(&cred.Admin, "admin", false, "mark the credential as an operator's")
	f.BoolVar(&asJSON, "json", false, `print {"token": ..., "credential": {...}} as one JSON object`)
	return cmd
}

// printToken writes the token and its credential: as one JSON object, or
// as two lines, each after a comment line saying what it is for, so
// `grep -v '^#'` leaves the token, then the credential.
func printToken(w io.Writer, token string, cred identity.Credential, asJSON bool) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	var err error
	if asJSON {
		err = enc.Encode(struct {
			Token      string              `json:"token"`
			Credential identity.Credential `json:"credential"`
		}{token, cred})
	} else {
		fmt.Fprintln(&buf, "# The token, a secret: hand it to its caller now; it is not shown again, and tzctx keeps only its SHA-256.")
		fmt.Fprintln(&buf, token)
		fmt.Fprintln(&buf, `# The credential: add this line to the "credentials" array of the configuration.`)
		err = enc.Encode(cred)
	}
	if err != nil {
		return err
	}
	_, err = w.Write(buf.Bytes())
	return err
}
