package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/lore-memory/lore/guard"
	"github.com/lore-memory/lore/offload"
	"github.com/lore-memory/lore/vault"
)

// The vault profile: the eight tools of specs/003 (sidecar: the first five),
// with the spec's names, parameters and defaults, on lore's vault, index,
// guard and Drafts.

func (s *Server) vaultTools(sidecar bool) []tool {
	ts := []tool{
		{newTool("get_project_loadout", "Project loadout", loadoutDesc, loadoutSchema, true), s.loadout},
		{newTool("recall_memory", "Recall memory", recallDesc, recallSchema, true), s.recallMemory},
		{newTool("guard_check", "Guard check", guardDesc, guardSchema, true), s.guardCheck},
		{newTool("flush_session", "Flush session", flushDesc, flushSchema, false), s.flushSession},
		{newTool("distill_session_skill", "Distill a skill", distillDesc, distillSchema, false), s.distill},
	}
	if !sidecar {
		ts = append(ts,
			tool{newTool("offload_context", "Offload context", offloadDesc, offloadSchema, false), s.offloadContext},
			tool{newTool("inspect_log_node", "Inspect a log node", inspectDesc, inspectSchema, true), s.inspectNode},
			tool{newTool("gc_session_context", "Session context GC", gcDesc, gcSchema, false), s.gcContext},
		)
	}
	return ts
}

// textResult is a result whose text content is Markdown for the agent.
type textResult struct {
	Text string `json:"text"`
	Data any    `json:"data,omitempty"`
}

func (t textResult) AgentText() string { return t.Text }

// checkProjectName accepts project_name only when it names the bound project.
func (s *Server) checkProjectName(p *string) error {
	if p != nil && *p != "" && *p != s.project {
		return vault.Errorf(vault.CodeInvalid, "project_name %q: this server is bound to project %q (from its working directory); bind another workspace to serve another project", *p, s.project)
	}
	return nil
}

// repoDir is the code repository a tool reads: repo_path (relative to the
// server's working directory, or absolute), else the working directory. It
// is confined to the bound workspace's repository (the working directory's
// git work tree, or the working directory itself outside one): an agent's
// repo_path cannot make the guard read the file system's root, the user's
// home or another project.
func (s *Server) repoDir(ctx context.Context, dir *string) (string, error) {
	if dir == nil || *dir == "" {
		return s.opt.WorkDir, nil
	}
	if err := vault.CheckName("repo_path", *dir); err != nil {
		return "", err // NUL is a control character too
	}
	want := *dir
	if !filepath.IsAbs(want) {
		want = filepath.Join(s.opt.WorkDir, want)
	}
	real, err := filepath.EvalSymlinks(want)
	if err != nil {
		return "", vault.Errorf(vault.CodeInvalid, "repo_path %q: %v", *dir, err)
	}
	bound := s.opt.WorkDir
	if repo, err := guard.OpenRepo(ctx, s.opt.WorkDir); err == nil {
		bound = repo.Root
	}
	if b, err := filepath.EvalSymlinks(bound); err == nil {
		bound = b
	}
	rel, err := filepath.Rel(bound, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", vault.Errorf(vault.CodeInvalid, "repo_path %q is outside this workspace's repository %s; the guard reads only the workspace it is bound to", *dir, bound)
	}
	return real, nil
}

func (s *Server) sources(ctx context.Context) ([]guard.Source, error) {
	return guard.Sources(ctx, s.ix, s.project)
}

type loadoutInput struct {
	ProjectName *string `json:"project_name,omitempty"`
	Diff        *bool   `json:"diff,omitempty"`
	Branch      *string `json:"branch,omitempty"`
}

func (s *Server) loadout(ctx context.Context, raw []byte) (any, error) {
	in, err := decodeOpen[loadoutInput](raw)
	if err != nil {
		return nil, err
	}
	if err := s.checkProjectName(in.ProjectName); err != nil {
		return nil, err
	}
	var changed []string
	if (in.Diff != nil && *in.Diff) || deref(in.Branch) != "" {
		if changed, err = guard.ChangedPaths(ctx, s.opt.WorkDir, deref(in.Branch)); err != nil {
			return nil, err
		}
	}
	text, err := guard.LoadoutFrom(ctx, s.ix, s.project, changed)
	if err != nil {
		return nil, err
	}
	return textResult{Text: text, Data: map[string]any{"project": s.project, "changed_paths": orNone(changed), "tokens": vault.EstimateTokens(text)}}, nil
}

// maxRecall is the most notes recall_memory ranks and returns.
const maxRecall = 100

type recallInput struct {
	Query string  `json:"query"`
	Limit *int    `json:"limit,omitempty"`
	Full  *bool   `json:"full,omitempty"`
	Mode  *string `json:"mode,omitempty"`
}

func (s *Server) recallMemory(ctx context.Context, raw []byte) (any, error) {
	in, err := decodeOpen[recallInput](raw)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(in.Query) == "" {
		return nil, vault.Errorf(vault.CodeInvalid, "query is required")
	}
	limit, mode, err := recallOptions(in)
	if err != nil {
		return nil, err
	}
	hits, err := s.ix.Recall(ctx, in.Query, mode, s.project, limit)
	if err != nil {
		return nil, err
	}
	// While some sections have no vector yet (just edited or stored, or
	// the server just started), the answer says so; a vector search that
	// found nothing then shows the lexical matches instead of nothing.
	pending := 0
	note := ""
	if mode != "lexical" && s.ix.VectorsBehind() {
		if pending, err = s.ix.PendingEmbeddings(ctx); err != nil {
			return nil, err
		}
	}
	if pending > 0 {
		note = fmt.Sprintf("(%d sections have no vector yet — they are being embedded now; vector results are incomplete until then)\n", pending)
		if mode == "vector" && len(hits) == 0 {
			if hits, err = s.ix.Recall(ctx, in.Query, "lexical", s.project, limit); err != nil {
				return nil, err
			}
			note = fmt.Sprintf("(%d sections have no vector yet — they are being embedded now; these are lexical matches meanwhile)\n", pending)
		}
	}
	if hits == nil {
		hits = []vault.RecallHit{}
	}
	var b strings.Builder
	if in.Full != nil && *in.Full {
		if err := s.writeWhole(ctx, &b, hits); err != nil {
			return nil, err
		}
	} else {
		for _, h := range hits {
			b.WriteString(h.Compact() + "\n")
		}
	}
	if len(hits) == 0 {
		b.WriteString("(no matching notes)\n")
	}
	b.WriteString(note)
	return textResult{Text: b.String(), Data: map[string]any{"hits": hits, "mode": mode, "vectors_pending": pending}}, nil
}

// recallOptions are recall_memory's limit (5 unless given; at most
// maxRecall) and retrieval mode.
func recallOptions(in recallInput) (int, string, error) {
	limit := 5
	if in.Limit != nil {
		if *in.Limit < 1 {
			return 0, "", vault.Errorf(vault.CodeInvalid, "limit %d is not a positive number of notes", *in.Limit)
		}
		// The spec sets no maximum; the work is capped, not the contract:
		// at most maxRecall notes are ranked and returned.
		limit = min(*in.Limit, maxRecall)
	}
	mode := "hybrid"
	if in.Mode != nil {
		switch *in.Mode {
		case "hybrid":
		case "bm25":
			mode = "lexical"
		case "vector":
			mode = "vector"
		default:
			return 0, "", vault.Errorf(vault.CodeInvalid, "mode %q is not hybrid, bm25 or vector", *in.Mode)
		}
	}
	return limit, mode, nil
}

// writeWhole writes the whole notes of hits, each under a comment naming
// it and its score (full: true).
func (s *Server) writeWhole(ctx context.Context, b *strings.Builder, hits []vault.RecallHit) error {
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ResourceID
	}
	if len(ids) > 0 {
		rs, err := s.ix.Load(ctx, ids, s.project)
		if err != nil {
			return err
		}
		for i, r := range rs {
			if i > 0 {
				b.WriteString("\n\n---\n\n")
			}
			fmt.Fprintf(b, "<!-- %s (%s) score:%.3f -->\n%s", r.Path, r.ResourceID, hits[i].Score, r.Content)
		}
	}
	return nil
}

type guardInput struct {
	Diff        *string  `json:"diff,omitempty"`
	ProjectName *string  `json:"project_name,omitempty"`
	RepoPath    *string  `json:"repo_path,omitempty"`
	Branch      *string  `json:"branch,omitempty"`
	Strict      *bool    `json:"strict,omitempty"`
	Files       []string `json:"files,omitempty"`
}

type guardResult struct{ guard.Report }

func (g guardResult) AgentText() string { return g.FormatADR() }

func (s *Server) guardCheck(ctx context.Context, raw []byte) (any, error) {
	in, err := decodeOpen[guardInput](raw)
	if err != nil {
		return nil, err
	}
	if err := s.checkProjectName(in.ProjectName); err != nil {
		return nil, err
	}
	src, err := s.sources(ctx)
	if err != nil {
		return nil, err
	}
	rs := guard.Compile(src, s.project)
	gin := guard.Input{Files: in.Files, Branch: deref(in.Branch), WorkTree: true}
	if in.Diff != nil {
		if len(*in.Diff) > guard.MaxFileBytes {
			return nil, vault.Errorf(vault.CodeInvalid, "diff is %d bytes; the limit is %d MiB", len(*in.Diff), guard.MaxFileBytes>>20)
		}
		gin.Diff = []byte(*in.Diff)
	}
	for i, f := range in.Files {
		if filepath.IsAbs(f) {
			return nil, vault.Errorf(vault.CodeInvalid, "files[%d] %q is absolute; give paths relative to the repository", i, f)
		}
	}
	dir, err := s.repoDir(ctx, in.RepoPath)
	if err != nil {
		return nil, err
	}
	diffs, content, done, err := guard.Changes(ctx, dir, gin)
	defer done()
	if err != nil {
		return nil, err
	}
	return guardResult{rs.Check(diffs, content, in.Strict != nil && *in.Strict)}, nil
}

// stringOrList is a string or an array of strings (flush_session's supersedes).
type stringOrList []string

func (l *stringOrList) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*l = []string{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return vault.Errorf(vault.CodeInvalid, "supersedes must be a string or an array of strings")
	}
	*l = many
	return nil
}

type flushInput struct {
	Title        string       `json:"title"`
	Content      string       `json:"content"`
	Summary      *string      `json:"summary,omitempty"`
	Category     *string      `json:"category,omitempty"`
	Tags         []string     `json:"tags,omitempty"`
	RelatedNotes []string     `json:"related_notes,omitempty"`
	Supersedes   stringOrList `json:"supersedes,omitempty"`
}

func (s *Server) flushSession(ctx context.Context, raw []byte) (any, error) {
	in, err := decodeOpen[flushInput](raw)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(in.Title) == "" || strings.TrimSpace(in.Content) == "" {
		return nil, vault.Errorf(vault.CodeInvalid, "title and content are required")
	}
	category := "log"
	if in.Category != nil && *in.Category != "" {
		category = *in.Category
	}
	folder, err := s.categoryFolder(ctx, category)
	if err != nil {
		return nil, err
	}
	// Resolve what it supersedes to resource ids.
	var superseded []string
	for _, ref := range in.Supersedes {
		id, err := s.resolveNote(ctx, ref)
		if err != nil {
			return nil, err
		}
		superseded = append(superseded, id)
	}
	p, err := s.freePath(ctx, folder, in.Title, category)
	if err != nil {
		return nil, err
	}
	front := map[string]any{"title": in.Title, "category": category, "status": "active", "created": s.now().UTC().Format("2006-01-02")}
	keys := []string{"title", "description", "category", "tags", "status", "supersedes", "created"}
	if in.Summary != nil && *in.Summary != "" {
		front["description"] = *in.Summary
	}
	if len(in.Tags) > 0 {
		front["tags"] = in.Tags
	}
	if len(superseded) > 0 {
		front["supersedes"] = superseded
	}
	body := vault.FrontmatterBlock(front, keys...) + "# " + in.Title + "\n\n" + strings.TrimSpace(in.Content) + "\n"
	if len(in.RelatedNotes) > 0 {
		body += "\n## Related\n\n"
		for _, r := range in.RelatedNotes {
			body += "- [[" + strings.Trim(r, "[] ") + "]]\n"
		}
	}
	res, err := s.store.CreateSuperseding(ctx, s.project, vault.CreateOp{Path: p, Body: body, Description: in.Summary}, superseded)
	if err != nil {
		return nil, err
	}
	text := fmt.Sprintf("✓ Flushed to %s as Draft %s (resource %s)", p, res.DraftID, res.ResourceID)
	if len(superseded) > 0 {
		text += "; marks superseded: " + strings.Join(superseded, ", ")
	}
	text += ". A person reviews and merges it (lore drafts)."
	return textResult{Text: text + "\n", Data: map[string]any{"path": p, "superseded": orNone(superseded), "result": res}}, nil
}

// resolveNote finds the note a supersedes entry names — an id, a path, a
// title, an alias or a file's base name, with or without [[ ]] — as a
// wikilink resolves (vault/names.go), in the project's memory.
func (s *Server) resolveNote(ctx context.Context, ref string) (string, error) {
	id, _, err := s.ix.ResolveLink(ctx, ref, s.project)
	if vault.ErrorCode(err) == vault.CodeNotFound {
		return "", vault.Errorf(vault.CodeNotFound, "supersedes: no note %q (by id, path, title, alias or file name) in project %s's memory", ref, s.project)
	}
	return id, err
}

// categoryFolder is the folder a category's notes go to: lore.yaml's
// folders: when it names one; else the first of the category's usual folders
// (vault.CategoryFolders) that already holds notes; else the default.
func (s *Server) categoryFolder(ctx context.Context, category string) (string, error) {
	cfg := s.ix.Vault().Config
	folder := cfg.Folder(category)
	if _, set := cfg.Folders[strings.ToLower(strings.TrimSpace(category))]; !set {
		for _, f := range vault.CategoryFolders[strings.ToLower(strings.TrimSpace(category))] {
			if rs, err := s.ix.Under(ctx, f+"/", s.project); err == nil && len(rs) > 0 {
				folder = f
				break
			}
		}
	}
	if _, err := vault.CleanPath(folder + "/x.md"); err != nil {
		return "", vault.Errorf(vault.CodeInvalid, "category %q does not make a folder name", category)
	}
	return folder, nil
}

// freePath names a new note in folder in the style of the notes already
// there (vault.NoteName).
func (s *Server) freePath(ctx context.Context, folder, title, category string) (string, error) {
	existing, err := s.ix.Under(ctx, folder+"/", s.project)
	if err != nil {
		return "", err
	}
	var names []string
	for _, r := range existing {
		if path.Dir(r.Path) == folder {
			names = append(names, r.Path)
		}
	}
	return vault.NoteName(folder, names, title, category, s.now()), nil
}

type distillInput struct {
	RawTrace     *string  `json:"raw_trace,omitempty"`
	NodeID       *string  `json:"node_id,omitempty"`
	Title        *string  `json:"title,omitempty"`
	ContextHint  *string  `json:"context_hint,omitempty"`
	Category     *string  `json:"category,omitempty"`
	Tags         []string `json:"tags,omitempty"`
	RelatedNotes []string `json:"related_notes,omitempty"`
	DryRun       *bool    `json:"dry_run,omitempty"`
	Target       *string  `json:"target,omitempty"`
}

func (s *Server) distill(ctx context.Context, raw []byte) (any, error) {
	in, err := decodeOpen[distillInput](raw)
	if err != nil {
		return nil, err
	}
	trace := deref(in.RawTrace)
	if in.NodeID != nil {
		if trace != "" {
			return nil, vault.Errorf(vault.CodeInvalid, "give raw_trace or node_id, not both")
		}
		t, err := s.off.Get(*in.NodeID)
		if err != nil {
			return nil, err
		}
		trace = t
	}
	category := "skill"
	if in.Category != nil && *in.Category != "" {
		category = *in.Category
	}
	sk, err := offload.Distill(trace, deref(in.Title), deref(in.ContextHint), category, in.Tags, in.RelatedNotes)
	if err != nil {
		return nil, err
	}
	target := "default"
	if in.Target != nil && *in.Target != "" {
		target = *in.Target
	}
	dry := in.DryRun != nil && *in.DryRun
	out := map[string]any{"skill": sk, "target": target, "dry_run": dry}
	switch target {
	case "default":
		return s.distillToVault(ctx, sk, category, dry, out)
	case "hermes", "omp":
		return s.distillToTool(sk, target, dry, out)
	}
	return nil, vault.Errorf(vault.CodeInvalid, "target %q is not default, hermes or omp", target)
}

// distillToVault proposes the skill as a note in the category's folder (a
// Draft), or previews it (dry).
func (s *Server) distillToVault(ctx context.Context, sk offload.Skill, category string, dry bool, out map[string]any) (any, error) {
	folder := s.ix.Vault().Config.Folder(category)
	p, err := s.freePath(ctx, folder, sk.Title, category)
	if err != nil {
		return nil, err
	}
	note := sk.Note()
	out["path"], out["content"] = p, note
	if dry {
		return textResult{Text: fmt.Sprintf("Preview (dry run, nothing written) of %s:\n\n%s", p, note), Data: out}, nil
	}
	res, err := s.store.Apply(ctx, s.project, vault.Op{Create: &vault.CreateOp{Path: p, Body: note, Description: &sk.Description}})
	if err != nil {
		return nil, err
	}
	out["result"] = res
	return textResult{Text: fmt.Sprintf("✓ Skill %q written to %s as Draft %s; a person reviews and merges it.\n", sk.Title, p, res.DraftID), Data: out}, nil
}

// distillToTool writes the skill where the agent tool target reads its
// skills (hermes, omp), or previews it (dry).
func (s *Server) distillToTool(sk offload.Skill, target string, dry bool, out map[string]any) (any, error) {
	p, err := sk.SkillPath(target, s.opt.Getenv)
	if err != nil {
		return nil, err
	}
	file := sk.SkillFile(target)
	out["path"], out["content"] = p, file
	if dry {
		return textResult{Text: fmt.Sprintf("Preview (dry run, nothing written) of %s:\n\n%s", p, file), Data: out}, nil
	}
	if have, err := os.ReadFile(p); err == nil && string(have) != file {
		return nil, vault.Errorf(vault.CodeInvalid, "%s exists already with other content; give another title", p)
	}
	if err := vault.WriteFileAtomic(p, []byte(file)); err != nil {
		return nil, err
	}
	return textResult{Text: fmt.Sprintf("✓ Skill %q written to %s (%s).\n", sk.Title, p, target), Data: out}, nil
}

type offloadInput struct {
	Content string  `json:"content"`
	TaskID  *string `json:"task_id,omitempty"`
}

type offloadResult struct{ offload.Offloaded }

func (o offloadResult) AgentText() string { return o.Text }

func (s *Server) offloadContext(ctx context.Context, raw []byte) (any, error) {
	in, err := decodeOpen[offloadInput](raw)
	if err != nil {
		return nil, err
	}
	o, err := s.off.Offload(in.Content, deref(in.TaskID))
	if err != nil {
		return nil, err
	}
	return offloadResult{o}, nil
}

type inspectInput struct {
	NodeID    string `json:"node_id"`
	StartLine *int   `json:"start_line,omitempty"`
	EndLine   *int   `json:"end_line,omitempty"`
}

type inspectResult struct{ offload.Inspected }

func (i inspectResult) AgentText() string {
	return fmt.Sprintf("%s: lines %d–%d of %d\n%s", i.NodeID, i.From, i.To, i.Lines, i.Text)
}

func (s *Server) inspectNode(ctx context.Context, raw []byte) (any, error) {
	in, err := decodeOpen[inspectInput](raw)
	if err != nil {
		return nil, err
	}
	if in.NodeID == "" {
		return nil, vault.Errorf(vault.CodeInvalid, "node_id is required")
	}
	r, err := s.off.Inspect(in.NodeID, derefInt(in.StartLine), derefInt(in.EndLine))
	if err != nil {
		return nil, err
	}
	return inspectResult{r}, nil
}

type gcInput struct {
	TrajectoryJSON string `json:"trajectory_json"`
	Threshold      *int   `json:"threshold,omitempty"`
	HotWindow      *int   `json:"hot_window,omitempty"`
	ContextWindow  *int   `json:"context_window,omitempty"`
}

func (s *Server) gcContext(ctx context.Context, raw []byte) (any, error) {
	in, err := decodeOpen[gcInput](raw)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(in.TrajectoryJSON) == "" {
		return nil, vault.Errorf(vault.CodeInvalid, "trajectory_json is required")
	}
	o := offload.GCOptions{Threshold: derefInt(in.Threshold), HotWindow: 5, ContextWindow: derefInt(in.ContextWindow)}
	if in.HotWindow != nil {
		o.HotWindow = *in.HotWindow
	}
	if (in.Threshold != nil && *in.Threshold < 1) || (in.ContextWindow != nil && *in.ContextWindow < 1000) {
		return nil, vault.Errorf(vault.CodeInvalid, "threshold must be ≥ 1 and context_window ≥ 1000")
	}
	return s.off.GC(in.TrajectoryJSON, o)
}

// decode reads a tool's arguments strictly into T (no arguments: {}).
func decode[T any](raw []byte) (T, error) {
	var in T
	err := vault.DecodeStrict(orEmpty(raw), &in)
	return in, err
}

// decodeOpen decodes a vault-profile tool's input: spec 003's schemas allow
// fields they do not name, so an unknown field is skipped, not refused.
func decodeOpen[T any](raw []byte) (T, error) {
	var in T
	err := vault.DecodeOpen(orEmpty(raw), &in)
	return in, err
}

func orEmpty(raw []byte) []byte {
	if len(raw) == 0 {
		return []byte("{}")
	}
	return raw
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func derefInt(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

func orNone[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return xs
}
