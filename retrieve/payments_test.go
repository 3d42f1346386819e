package retrieve

import (
	"fmt"
	"strings"
	"testing"
)

// paymentsVault is a small payments team's vault: an incident log and a
// Chinese note on concurrency both link to ADR-012, the decision that
// answers them, which shares few words with a mixed-language query.
var paymentsVault = map[string]string{
	"decisions/adr-012-redlock.md": "---\nid: mem_adr012\ntitle: ADR-012 Use a Redis lock per charge\n---\n# ADR-012 Use a Redis lock per charge\n\n## Context\n\nTwo workers processed the same Stripe event at once and the customer was refunded twice.\n\n## Decision\n\nEvery handler takes a Redlock on the charge id before it changes money, and records the event id, so a retried delivery is a no-op.\n\n## Consequences\n\nHandlers wait for the lock; a lost lock aborts the handler, which Stripe retries.\n",
	"notes/并发控制.md":                "# 并发控制\n\nStripe 的 webhook 会重试，同一事件可能被两个 worker 同时处理。幂等性靠事件 id 去重，分布式锁见 [[ADR-012 Use a Redis lock per charge]]。\n\n## 分布式锁\n\n每个 charge 一把锁，超时自动释放。\n",
	"logs/2026-03-incident.md":     "# Incident 2026-03: double refund\n\n## Timeline\n\nA Stripe webhook was delivered twice; two workers refunded the same charge. Double refund of 40 customers.\n\n## Follow-up\n\nWe adopted [[ADR-012 Use a Redis lock per charge]] and made the webhook handler idempotent.\n",
	"howto/stripe-keys.md":         "# Rotating Stripe keys\n\nRotate the webhook signing secret every quarter.\n",
	"howto/refunds.md":             "# Refunds by hand\n\nA support agent can refund from the dashboard.\n",
}

// The decision both delivered notes point to is delivered too, within the
// budget, instead of being cut for scoring under 30% of the top (it was
// cut:weak at 0.26 against 1.05).
func TestActivate_TheLinkedDecisionIsNotCutAsWeak(t *testing.T) {
	tv := newTestVault(t, paymentsVault)
	act := tv.activate("Stripe webhook 幂等性 分布式锁 double refund", "")
	var paths []string
	found := false
	for _, f := range act.Fragments {
		paths = append(paths, f.Path)
		found = found || f.Path == "decisions/adr-012-redlock.md"
	}
	if !found {
		t.Fatalf("ADR-012 was not delivered: %s", strings.Join(paths, ", "))
	}
}

// A note whose sections answer the query by their own text is delivered
// beyond the per-note cap of two, within the budget: "Remove a hotkey" was
// cut as cut:per_resource behind the note's one-line pointer section. A
// section that matches only by what every section of the note shares (its
// title, its aliases) still stops at the cap.
func TestActivate_SectionsThatAnswerPassThePerNoteCap(t *testing.T) {
	tv := newTestVault(t, map[string]string{
		"Hotkeys.md": "---\naliases: [Keyboard shortcuts]\n---\n# Hotkeys\n\nSee the settings.\n\n## Set a hotkey\n\nOpen Settings → Hotkeys, find the command, press the new hotkey.\n\n## Remove a hotkey\n\nClick the cross beside a hotkey to remove it.\n\n## Conflicts\n\nTwo commands may share a hotkey; the list marks them.\n\n## History\n\nThe page was added in 0.9.\n",
		"other.md":   "# Editing\n\nType text.\n",
	})
	act := tv.activate("set, remove or share a hotkey", "")
	got := map[string]bool{}
	for _, f := range act.Fragments {
		if f.Path == "Hotkeys.md" && len(f.HeadingPath) > 1 {
			got[f.HeadingPath[1]] = true
		}
	}
	for _, want := range []string{"Set a hotkey", "Remove a hotkey", "Conflicts"} {
		if !got[want] {
			t.Errorf("%s was not delivered: %v", want, keys(act))
		}
	}
	if got["History"] {
		t.Errorf("History, which matches nothing of its own, passed the cap: %v", keys(act))
	}
}

// A further part of a section already delivered is no further section: the
// parts of one long section do not pass the per-note cap as answers by
// their own text. On the Obsidian Hub five parts of a CSS snippet's list of
// color variables were delivered for "the light theme's default css color
// variables", before the guide that lists the theme's defaults.
func TestActivate_APartOfADeliveredSectionDoesNotPassTheCap(t *testing.T) {
	var list strings.Builder
	list.WriteString("# Explorer lines\n\n## Colors\n\n")
	for i := range 120 {
		fmt.Fprintf(&list, "- `--explorer-line-color-%d`: a css color variable for the light theme's explorer line %d, default gray.\n", i, i)
	}
	tv := newTestVault(t, map[string]string{
		"snippets/explorer-lines.md": list.String(),
		"guides/theme-colors.md":     "# Theme colors\n\n## Light theme colors\n\nThe default css color variables of the light theme: `--background-primary`, `--text-normal`.\n",
		"guides/editing.md":          "# Editing\n\nType text.\n",
	})
	act := tv.activate("the light theme's default css color variables", "")
	parts := map[string]int{} // by note and heading path: a section's parts share both
	guide := false
	for _, f := range act.Fragments {
		parts[f.Path+" › "+strings.Join(f.HeadingPath, " › ")]++
		guide = guide || f.Path == "guides/theme-colors.md"
	}
	for s, n := range parts {
		if n > 2 {
			t.Errorf("%d parts of %s delivered, past the per-note cap of 2: %v", n, s, keys(act))
		}
	}
	if !guide {
		t.Errorf("the theme's colors were not delivered: %v", keys(act))
	}
}

// RelevantOnly delivers nothing for a query the vault is not about (an OR
// of its words still finds something in BM25), and the answer for one it is
// about.
func TestActivate_RelevantOnlyDeliversNothingUnrelated(t *testing.T) {
	tv := newTestVault(t, paymentsVault)
	ctx := t.Context()
	for _, q := range []string{"fix the typo in this sentence please", "what is the capital of France", "refund"} {
		act, err := tv.Ix.Activate(ctx, vaultRequest(q, true))
		if err != nil {
			t.Fatal(err)
		}
		if q == "refund" {
			if len(act.Fragments) == 0 {
				t.Errorf("%q (a word the vault is about) delivered nothing", q)
			}
			continue
		}
		if len(act.Fragments) != 0 {
			t.Errorf("%q delivered %v", q, keys(act))
		}
	}
	act, err := tv.Ix.Activate(ctx, vaultRequest("double refund after a Stripe webhook was delivered twice", true))
	if err != nil {
		t.Fatal(err)
	}
	if len(act.Fragments) == 0 || act.Fragments[0].Path != "logs/2026-03-incident.md" {
		t.Errorf("the incident was not delivered first: %v", keys(act))
	}
}

// The relevance bar counts a Chinese question's content, not its phrasing:
// "一下" counted among the words a section held, so the hook sent a
// section for "跑一下测试" (run the tests) by its "一下". A question whose
// content a section holds ("前端怎么回滚") still gets it.
func TestActivate_RelevanceBarLeavesChinesePhrasingOut(t *testing.T) {
	tv := newTestVault(t, map[string]string{
		"发布流程.md": "# 发布流程\n\n## 回滚\n\n前端上线后出问题时回滚到上一个版本。\n",
		"工具.md":   "# 测试\n\n测试前先看一下日志。\n",
	})
	ctx := t.Context()
	act, err := tv.Ix.Activate(ctx, vaultRequest("前端怎么回滚", true))
	if err != nil {
		t.Fatal(err)
	}
	if len(act.Fragments) == 0 || act.Fragments[0].Path != "发布流程.md" {
		t.Errorf("the rollback section was not sent: %v", keys(act))
	}
	if act, err = tv.Ix.Activate(ctx, vaultRequest("跑一下测试", true)); err != nil {
		t.Fatal(err)
	}
	if len(act.Fragments) != 0 {
		t.Errorf("跑一下测试 was sent %v", keys(act))
	}
}

// A vector clears the hook's relevance bar only when it is close: the
// built-in model puts everyday prompts at 0.5 to 0.7 from sections of most
// vaults, and at a bar of 0.5 the hook sent something for four of five
// off-topic prompts in hybrid mode (docs/BENCHMARKS.md, the prompt hook).
func TestRelevant_AVectorMustBeClose(t *testing.T) {
	none := map[string]bool{"run": true, "test": true}
	for _, tc := range []struct {
		sim  float64
		want bool
	}{{0.55, false}, {0.65, false}, {0.7, true}, {0.9, true}} {
		c := &candidate{}
		c.VectorScore = tc.sim
		if got := relevant(c, none); got != tc.want {
			t.Errorf("a section that holds none of the words, at similarity %.2f: relevant %v, want %v", tc.sim, got, tc.want)
		}
	}
}
