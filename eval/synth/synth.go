// Package synth writes synthetic vaults for `lore bench` and the Go
// benchmarks: deterministic for a seed, with frontmatter, headings,
// wikilinks, code identifiers and some Chinese, about 4 KB a note, words
// drawn from a Zipf distribution like real prose. It imports nothing of lore,
// so the index's own tests can use it.
package synth

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"
)

var words = strings.Fields(`the of and to in is that for it as with was on be by this are or from at
which an but not have has had were can all their been more one will would there what so about when if out
up into some could them other than then these only its time two may first any new over also after use used
index search memory agent vault note release deploy test build query token budget fragment section heading
cache server client request response error retry timeout backoff queue worker thread lock transaction
commit branch merge rebase review draft publish sync remote push fetch config option flag default value
schema migration table column row key hash file path folder link graph rank score weight vector embedding
model batch stream log trace metric alert incident outage latency throughput memory disk network socket
protocol message payload header body status code route handler middleware session user project team owner
decision context consequence rule guard policy check diff patch hook script pipeline stage job runner
container image cluster node pod service endpoint gateway proxy balancer database replica shard partition
backup restore snapshot checkpoint recovery failover consistency isolation durability atomic idempotent
concurrency parallel async await promise callback event signal channel buffer pool limit quota rate burst`)

var cjk = strings.Fields(`检索 并发 控制 索引 发布 回滚 配置 缓存 日志 监控 告警 事务 分支 合并 审核 同步 远程
向量 模型 查询 预算 片段 章节 标题 错误 重试 超时 队列 锁定 提交 规则 检查 钩子 脚本 流水线 容器 集群
服务 网关 代理 数据库 副本 分片 备份 恢复 快照 一致性 隔离 持久化`)

type gen struct {
	r     *rand.Rand
	zipf  *rand.Zipf
	vocab []string
}

func newGen(seed int64) *gen {
	r := rand.New(rand.NewSource(seed))
	vocab := append([]string(nil), words...)
	syll := strings.Fields("ka lo mi ter san vel dor ix qu ren pa tho lin gar bes ump or fy zen")
	for len(vocab) < 6000 { // a long tail of rare words
		n := 2 + r.Intn(3)
		var w string
		for i := 0; i < n; i++ {
			w += syll[r.Intn(len(syll))]
		}
		vocab = append(vocab, w)
	}
	return &gen{r: r, zipf: rand.NewZipf(r, 1.07, 2, uint64(len(vocab)-1)), vocab: vocab}
}

func (s *gen) word() string { return s.vocab[s.zipf.Uint64()] }

func (s *gen) identifier() string {
	a, b, c := s.word(), s.word(), s.word()
	switch s.r.Intn(3) {
	case 0:
		return a + strings.ToUpper(b[:1]) + b[1:] + strings.ToUpper(c[:1]) + c[1:]
	case 1:
		return a + "_" + b + "_" + c
	}
	return "internal/" + a + "/" + b + ".go"
}

func (s *gen) sentence(n int) string {
	ws := make([]string, n)
	for i := range ws {
		switch k := s.r.Intn(40); {
		case k == 0:
			ws[i] = "`" + s.identifier() + "`"
		case k == 1:
			ws[i] = cjk[s.r.Intn(len(cjk))] + cjk[s.r.Intn(len(cjk))]
		default:
			ws[i] = s.word()
		}
	}
	out := strings.Join(ws, " ")
	r, n := utf8.DecodeRuneInString(out)
	return string(unicode.ToUpper(r)) + out[n:] + "."
}

func title(s *gen, i int) string {
	return fmt.Sprintf("%s %s %s %d", s.word(), s.word(), s.word(), i)
}

// GenerateVault writes n synthetic notes under root/bench and returns their paths.
func GenerateVault(root string, n int, seed int64) ([]string, error) {
	s := newGen(seed)
	titles := make([]string, n)
	for i := range titles {
		titles[i] = title(s, i)
	}
	paths := make([]string, n)
	for i := 0; i < n; i++ {
		var b strings.Builder
		fmt.Fprintf(&b, "---\nid: mem_bench%07d\ntitle: %q\ndescription: %q\ntags: [%s, %s]\n---\n", i, titles[i], s.sentence(10), s.word(), s.word())
		fmt.Fprintf(&b, "# %s\n\n%s\n\n", titles[i], s.sentence(20))
		for h := 0; h < 5; h++ {
			fmt.Fprintf(&b, "## %s %s\n\n", s.word(), s.word())
			for p := 0; p < 2; p++ {
				for k := 0; k < 4; k++ {
					b.WriteString(s.sentence(8 + s.r.Intn(12)))
					b.WriteByte(' ')
				}
				b.WriteString("\n\n")
			}
			if s.r.Intn(2) == 0 {
				fmt.Fprintf(&b, "See [[%s]].\n\n", titles[s.r.Intn(n)])
			}
		}
		rel := fmt.Sprintf("bench/%03d/note-%06d.md", i/100, i)
		full := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(full, []byte(b.String()), 0o644); err != nil {
			return nil, err
		}
		paths[i] = rel
	}
	return paths, nil
}

// Queries returns n agent-like queries over the synthetic vocabulary.
func Queries(n int, seed int64) []string {
	s := newGen(seed + 1)
	out := make([]string, n)
	for i := range out {
		switch i % 10 {
		case 0:
			out[i] = s.identifier()
		case 1:
			out[i] = cjk[s.r.Intn(len(cjk))]
		default:
			out[i] = s.sentence(4 + s.r.Intn(8))
		}
	}
	return out
}

// Texts returns n texts of the given number of 12-word sentences, drawn as
// the notes' prose is.
func Texts(n, sentences int, seed int64) []string {
	s := newGen(seed)
	out := make([]string, n)
	for i := range out {
		var sb strings.Builder
		for k := 0; k < sentences; k++ {
			sb.WriteString(s.sentence(12))
			sb.WriteByte(' ')
		}
		out[i] = sb.String()
	}
	return out
}
