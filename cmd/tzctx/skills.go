package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/turnzerocloud/tzctx/internal/action/plane"
	"github.com/turnzerocloud/tzctx/internal/action/skills"
	"github.com/turnzerocloud/tzctx/schemas"
)

func newSkillsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "skills",
		Short: "Work with the skills Turn Zero Cloud serves",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newSkillsExportCmd())
	return cmd
}

func newSkillsExportCmd() *cobra.Command {
	var force, all bool
	cmd := &cobra.Command{
		Use:   "export [--force] [--all] DIR",
		Short: "Write each skill's folder, DIR/<name>/SKILL.md, for an agent client to install",
		Long: `Export writes the skills this build serves, generated from the skill sources
and the enumeration of actions, in the Agent Skills form: one folder per skill,
DIR/<name>/SKILL.md, with a <part>.md beside it for each part a skill has.

Only live skills are written, those whose every action this build registers,
as the catalog lists them; --all writes the others too, each named on the
output as not live.

DIR must be absent or empty. --force writes into a DIR that holds other
entries, such as a client's skills folder: each exported skill's folder is
replaced whole (built beside it, then renamed into place) and every other
entry is left as it is.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := schemas.Load()
			if err != nil {
				return err
			}
			ss, err := skills.Generate(c)
			if err != nil {
				return err
			}
			names, err := plane.Registered()
			if err != nil {
				return err
			}
			registered := func(a string) bool { return slices.Contains(names, a) }
			var out []skills.Skill
			var notes []string
			for _, s := range ss {
				if skills.Live(s, registered) {
					out = append(out, s)
					continue
				}
				var missing []string
				for _, a := range s.Actions {
					if !registered(a) {
						missing = append(missing, a)
					}
				}
				what := "skipped (--all writes it)"
				if all {
					out, what = append(out, s), "written (--all)"
				}
				notes = append(notes, fmt.Sprintf("%s is not live in this build, which does not register %s: %s", s.Name, strings.Join(missing, ", "), what))
			}
			written, err := skills.Export(args[0], out, force)
			if err != nil && len(written) == 0 {
				return err
			}
			for _, f := range written {
				fmt.Fprintf(cmd.OutOrStdout(), "wrote %s\n", f)
			}
			for _, n := range notes {
				fmt.Fprintln(cmd.OutOrStdout(), n)
			}
			return err
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "write into a DIR that holds other entries, replacing only the skills' folders")
	cmd.Flags().BoolVar(&all, "all", false, "write the skills that are not live in this build too")
	return cmd
}
