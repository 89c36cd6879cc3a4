package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/turnzerocloud/tzctx/internal/ops/objstore"
	"github.com/turnzerocloud/tzctx/server"
	"github.com/turnzerocloud/tzctx/store"
)

func newPublishCmd(g *globals) *cobra.Command {
	var to, cfgPath string
	var activate bool
	cmd := &cobra.Command{
		Use:   "publish VERSION --to s3://BUCKET/PREFIX [--activate]",
		Short: "Upload a stored version's archive to an S3-compatible store; --activate makes followers serve it",
		Long: `Publish uploads the archive of a stored version (as tzctx export writes it) to
PREFIX/versions/VERSION.tzctx in the bucket, in checksummed parts, and with
--activate then replaces the pointer PREFIX/ACTIVE, which servers run with
--follow poll. The archive is complete before the pointer names it, so an
interrupted publish leaves nothing a follower takes.

The store is reached as the configuration's "s3" member says, and what it
leaves empty comes from AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL, AWS_REGION,
AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if to == "" {
				return fmt.Errorf("--to is required: name the location, as s3://BUCKET/PREFIX")
			}
			loc, err := objstore.ParseLocation(to)
			if err != nil {
				return fmt.Errorf("--to: %w", err)
			}
			cfg, err := server.LoadConfig(cfgPath)
			if err != nil {
				return err
			}
			c, err := objstore.New(cfg.S3.FromEnv(os.Getenv), loc)
			if err != nil {
				return err
			}
			// The pointer's write is bounded as a follower's read is.
			c.SetTimeouts(time.Duration(cfg.Follow.RequestTimeout), time.Duration(cfg.Follow.StallTimeout))
			st, err := store.OpenExisting(g.dataDir())
			if err != nil {
				return err
			}
			p, err := publish(cmd.Context(), st, c, args[0])
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "published %s to %s/%s (%d bytes, sha256 %s)\n", p.Version, loc, p.Archive, p.Size, p.SHA256)
			if activate {
				if err := c.SetActive(cmd.Context(), p); err != nil {
					return err
				}
				fmt.Fprintf(out, "activated %s at %s; followers take it at their next poll\n", p.Version, loc)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&to, "to", "", "location to publish to, as s3://BUCKET/PREFIX")
	cmd.Flags().BoolVar(&activate, "activate", false, "replace the location's pointer, so that followers serve the version")
	cmd.Flags().StringVar(&cfgPath, "config", "", "configuration file (JSON), for its \"s3\" member and follow.request_timeout")
	return cmd
}

// publish streams the archive of version name into the store: the export
// writes into a pipe the upload reads, so nothing is staged on disk, and
// a failed export fails the upload, which then leaves no object.
func publish(ctx context.Context, st *store.Store, c *objstore.Client, name string) (objstore.Pointer, error) {
	if _, err := st.Lookup(name); err != nil {
		return objstore.Pointer{}, err
	}
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(st.Export(ctx, name, pw)) }()
	p, err := c.PutArchive(ctx, name, pr)
	pr.CloseWithError(err)
	return p, err
}
