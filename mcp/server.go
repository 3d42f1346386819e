package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"runtime/debug"
	"strings"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/lore-memory/lore/journal"
	"github.com/lore-memory/lore/offload"
	"github.com/lore-memory/lore/vault"
)

// Profiles names the tool profiles.
var Profiles = []string{"memory", "vault", "sidecar", "journal"}

// Memory is what the MCP tools read of memory (*retrieve.Memory is one): activate
// and recall, load, notes under a folder, the rules and recent notes of the
// guard and the loadout, link names, and whether vectors are still being
// made (vault_search says so).
type Memory interface {
	vault.Activator
	vault.Loader
	vault.Lister
	vault.RuleReader
	ResolveLink(ctx context.Context, target, project, src string) (id, path string, err error)
	VectorsBehind() bool
	DefaultMode() string // hybrid, or lexical without an embedding model
	PendingEmbeddings(ctx context.Context) (int, error)
}

// Writer is what the tools write memory with (*drafts.Store is one): the
// memory tool's store and the vault tools propose Drafts; the journal's
// remember writes its own new notes.
type Writer interface {
	vault.Proposer
	vault.Rememberer
}

// Deps are a server's collaborators, which cmd/lore builds and wires (Deps
// of one vault and project: the journal writes as that project).
type Deps struct {
	Memory  Memory
	Store   Writer
	Journal *journal.Journal // the journal profile's notes
	Offload *offload.Store   // the vault profile's logs
}

// Server is lore's MCP server for one vault and project.
type Server struct {
	ix      Memory
	store   Writer
	project string
	profile string
	srv     *server.MCPServer
	tools   []mcpgo.Tool
	opt     Options
	off     *offload.Store
	journal *journal.Journal
}

// Options are what a server needs of its surroundings.
type Options struct {
	WorkDir string              // the code repository's folder (guard, loadout); default "."
	Getenv  func(string) string // for the skill folders of distill_session_skill
	Now     func() time.Time    // the clock (notes' dates and names); default time.Now
	Log     io.Writer           // where a recovered panic's stack goes; default os.Stderr
	// Code checks activate's fragments' citations of code against the
	// workspace's repository (nil: not checked). When it has a Flush
	// method, activate calls it after each answer (the checker's cache).
	Code vault.CodeChecker
}

func (s *Server) now() time.Time {
	if s.opt.Now != nil {
		return s.opt.Now()
	}
	return time.Now()
}

// New makes the server of a profile for the project the workspace is bound
// to (the caller cannot change it in arguments).
func New(d Deps, project, profile, version string, opt ...Options) (*Server, error) {
	if profile == "" {
		profile = "memory"
	}
	ix := d.Memory
	s := &Server{ix: ix, store: d.Store, project: project, profile: profile, off: d.Offload, journal: d.Journal}
	if len(opt) > 0 {
		s.opt = opt[0]
	}
	if s.opt.WorkDir == "" {
		s.opt.WorkDir = "."
	}
	if s.opt.Getenv == nil {
		s.opt.Getenv = func(string) string { return "" }
	}
	if s.opt.Log == nil {
		s.opt.Log = os.Stderr
	}
	guide := ix.Vault().Config.Guidelines
	tools, err := s.toolsOf(profile, guide)
	if err != nil {
		return nil, err
	}
	s.serve(version, instructionsFor(profile, guide), tools)
	return s, nil
}

// toolsOf returns the tools of a profile, bound to the server.
func (s *Server) toolsOf(profile, guide string) ([]tool, error) {
	defs, ok := profiles[profile]
	if !ok {
		return nil, vault.Errorf(vault.CodeInvalid, "unknown profile %q; profiles: %s", profile, strings.Join(Profiles, ", "))
	}
	var ts []tool
	for _, d := range defs {
		call := d.call
		ts = append(ts, tool{d.def(guide), func(ctx context.Context, raw []byte) (any, error) { return call(s, ctx, raw) }})
	}
	return ts, nil
}

// serve makes the MCP server of the tools.
func (s *Server) serve(version, instructions string, tools []tool) {
	s.srv = server.NewMCPServer("lore", version,
		server.WithToolCapabilities(false),
		server.WithRecovery(),
		server.WithInstructions(instructions),
	)
	for _, t := range tools {
		s.tools = append(s.tools, t.def)
		s.srv.AddTool(t.def, s.handle(t.call))
	}
}

// NewUnavailable is a server of a profile's tools for a workspace lore
// cannot serve (not bound to a vault, a bad lore.yaml): it answers
// initialize and tools/list as always, so the agent connects, and every
// call with why (the error's code and message, which say the command to
// run) as a tool error, which the agent shows the person. Exiting instead
// left only "Connection closed" in the agent's UI.
func NewUnavailable(profile, version string, why error, opt ...Options) (*Server, error) {
	if profile == "" {
		profile = "memory"
	}
	s := &Server{profile: profile}
	if len(opt) > 0 {
		s.opt = opt[0]
	}
	if s.opt.Log == nil {
		s.opt.Log = os.Stderr
	}
	tools, err := s.toolsOf(profile, "LORE.md")
	if err != nil {
		return nil, err
	}
	for i := range tools {
		tools[i].call = func(context.Context, []byte) (any, error) { return nil, why }
	}
	s.serve(version, "lore cannot serve memory here yet: "+vault.Message(why), tools)
	return s, nil
}

// tool is one tool of a profile and its domain call.
type tool struct {
	def  mcpgo.Tool
	call func(context.Context, []byte) (any, error)
}

// agentText is implemented by results whose text content is a format the
// contract gives (Markdown, compact lines) rather than their JSON.
type agentText interface{ AgentText() string }

func instructionsFor(profile, guide string) string {
	switch profile {
	case "vault", "sidecar":
		return "lore serves this project's vault: call get_project_loadout at the start of a session, recall_memory for past decisions and notes, guard_check before committing. Notes you write (flush_session, distill_session_skill) become Drafts that people review."
	case "journal":
		return "lore's journal: long-term memory by keywords and time in namespaces {userId}/{projectId}. Call keywords_list before remember/recall when unsure of keywords; recall before answering about past events; remember lasting facts, decisions and plans."
	}
	return instructions(guide)
}

// Tools returns the tools the profile serves (for the schema snapshot).
func (s *Server) Tools() []mcpgo.Tool { return s.tools }

// handle wraps a domain call as an MCP tool handler: the domain object as
// structuredContent and as text, or an isError result with the error code.
// A panic in the call answers that call with an internal error (its stack
// goes to the log); the server goes on serving.
func (s *Server) handle(call func(context.Context, []byte) (any, error)) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		raw := []byte(req.Params.RawArguments)
		if len(raw) == 0 && req.Params.Arguments != nil {
			raw, _ = json.Marshal(req.Params.Arguments)
		}
		out, err := s.callSafely(ctx, req.Params.Name, call, raw)
		isErr := false
		if err != nil {
			out, isErr = toErrorObject(err), true
		}
		text, data, merr := Render(out)
		if merr != nil {
			return nil, merr
		}
		return &mcpgo.CallToolResult{
			Content:           []mcpgo.Content{mcpgo.NewTextContent(text)},
			StructuredContent: json.RawMessage(data),
			IsError:           isErr,
		}, nil
	}
}

// callSafely runs a tool's call, turning a panic into an internal error.
func (s *Server) callSafely(ctx context.Context, name string, call func(context.Context, []byte) (any, error), raw []byte) (out any, err error) {
	defer func() {
		if v := recover(); v != nil {
			fmt.Fprintf(s.opt.Log, "lore mcp: panic in tool %s (a bug in lore): %v\n%s", name, v, debug.Stack())
			out, err = nil, vault.Errorf(vault.CodeInternal, "the %s call failed on a bug in lore (%v); the server goes on, and its log has the details", name, v)
		}
	}()
	return call(ctx, raw)
}

// Render returns a tool result's two forms as a call sends them: the text
// content (the result's own agent text when it has one, its JSON otherwise)
// and the JSON of structuredContent. lore eval measures what agents are sent
// with it.
func Render(out any) (text, structured string, err error) {
	data, err := marshal(out)
	if err != nil {
		return "", "", err
	}
	text = data
	if at, ok := out.(agentText); ok {
		text = at.AgentText()
	}
	return text, data, nil
}

func marshal(v any) (string, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// Serve speaks MCP over stdin/stdout until stdin closes; logs go to logw.
func (s *Server) Serve(ctx context.Context, stdin io.Reader, stdout, logw io.Writer) error {
	out := &lineWriter{w: stdout}
	pr, pw := io.Pipe()
	go filterInput(stdin, pw, out)
	ss := server.NewStdioServer(s.srv)
	ss.SetErrorLogger(log.New(logw, "lore mcp: ", log.LstdFlags))
	err := ss.Listen(ctx, pr, out)
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.ErrClosedPipe) ||
		errors.Is(err, os.ErrClosed) || errors.Is(err, context.Canceled) {
		return nil
	}
	return fmt.Errorf("mcp: %w", err)
}

func instructions(guide string) string {
	return fmt.Sprintf("lore holds this project's memory: Markdown notes in a git vault that the team reviews. "+
		"Call the memory tool's activate once at the start of each substantive task; load whole resources before editing them; "+
		"store only when the user asks to maintain memory, after loading the guideline file %s. "+
		"A fragment marked stale cites code that changed since: check the code before relying on it.", guide)
}
