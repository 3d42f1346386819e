package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestMCP_AnUnboundFolderAnswersWithTheFix: lore mcp in a folder bound to
// no vault exited before initialize, so the agent's UI showed only
// "Connection closed". It answers initialize and tools/list, and every
// call with unbound_workspace and the command to run, as a tool error.
func TestMCP_AnUnboundFolderAnswersWithTheFix(t *testing.T) {
	for _, profile := range []string{"memory", "vault"} {
		c := startMCPIn(t, t.TempDir(), []string{"LORE_VAULT=", "LORE_PROJECT=", "XDG_CONFIG_HOME=" + t.TempDir()}, "--profile", profile)
		raw, err := c.request("tools/list", map[string]any{})
		var list struct {
			Tools []struct{ Name string } `json:"tools"`
		}
		json.Unmarshal(raw, &list)
		if err != nil || len(list.Tools) == 0 {
			t.Fatalf("%s: tools/list: %s %v", profile, raw, err)
		}
		raw, err = c.request("tools/call", map[string]any{"name": list.Tools[0].Name, "arguments": map[string]any{"op": map[string]any{"activate": map[string]any{"query": "x"}}}})
		var res struct {
			IsError bool `json:"isError"`
			Content []struct{ Text string }
		}
		json.Unmarshal(raw, &res)
		if err != nil || !res.IsError || len(res.Content) == 0 || !strings.Contains(res.Content[0].Text, "unbound_workspace") || !strings.Contains(res.Content[0].Text, "lore bind") {
			t.Errorf("%s: a call in an unbound folder: %s %v; want a tool error with unbound_workspace and the command", profile, raw, err)
		}
		c.close()
	}
}
