package synth

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Conversations writes a conversational-memory data set in BEIR format into
// dir: many short turns of two speakers across dated sessions (some in
// Chinese), each turn one document titled with its date and speaker, and
// questions that paraphrase one turn or need two of them (qrels name the
// turns that answer). It is deterministic for a seed; testdata/convo is its
// output for seed 1 (a test checks that they agree).
func Conversations(dir string, seed int64) error {
	r := rand.New(rand.NewSource(seed))
	var turns []convoTurn
	var questions []convoQuestion
	// Each fact and each pair is said once, in an order the seed gives.
	lang := map[bool]*struct {
		facts, pairs []int
		speakers     [2]string
		filler       []string
		factBank     []convoFact
		pairBank     []convoPair
	}{
		false: {r.Perm(len(convoFacts)), r.Perm(len(convoPairs)), [2]string{"Mia", "Jon"}, convoFiller, convoFacts, convoPairs},
		true:  {r.Perm(len(convoFactsZH)), r.Perm(len(convoPairsZH)), [2]string{"小林", "阿杰"}, convoFillerZH, convoFactsZH, convoPairsZH},
	}
	start := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	for s := 0; s < 36; s++ {
		day := start.AddDate(0, 0, s*3+r.Intn(2)).Format("2006-01-02")
		L := lang[s%5 == 4] // every fifth session is in Chinese
		n := 12 + r.Intn(9)
		said := make([]string, n) // what each turn says; "" is talk
		asked := map[int]int{}    // turn → the question it answers
		free := r.Perm(n)
		take := func() int { t := free[0]; free = free[1:]; return t }
		if s%2 == 1 && len(L.pairs) > 0 {
			// Two turns that answer one question together, apart.
			p := L.pairBank[L.pairs[0]]
			L.pairs = L.pairs[1:]
			a, b := take(), take()
			if a > b {
				a, b = b, a
			}
			said[a], said[b] = p.first, p.second
			questions = append(questions, convoQuestion{p.question, nil})
			asked[a], asked[b] = len(questions)-1, len(questions)-1
		}
		for k := 0; k < 2 && len(L.facts) > 0; k++ {
			f := L.factBank[L.facts[0]]
			L.facts = L.facts[1:]
			t := take()
			said[t] = f.turn
			questions = append(questions, convoQuestion{f.question, nil})
			asked[t] = len(questions) - 1
		}
		for t := 0; t < n; t++ {
			id := fmt.Sprintf("s%02d-t%02d", s, t)
			text := said[t]
			if text == "" {
				text = L.filler[r.Intn(len(L.filler))]
			}
			turns = append(turns, convoTurn{id, day + " · " + L.speakers[t%2], text})
			if q, ok := asked[t]; ok {
				questions[q].answers = append(questions[q].answers, id)
			}
		}
	}
	return writeBEIR(dir, turns, questions)
}

// convoTurn is one turn of the generated conversations: its id, its
// "date · speaker" title and its text.
type convoTurn struct{ id, title, text string }

// convoQuestion is a question and the turns that answer it.
type convoQuestion struct {
	text    string
	answers []string
}

// writeBEIR writes turns and questions to dir as a BEIR data set:
// corpus.jsonl, queries.jsonl and qrels/test.tsv.
func writeBEIR(dir string, turns []convoTurn, questions []convoQuestion) error {
	if err := os.MkdirAll(filepath.Join(dir, "qrels"), 0o755); err != nil {
		return err
	}
	var corpus, queries, qrels strings.Builder
	for _, t := range turns {
		b, _ := json.Marshal(map[string]string{"_id": t.id, "title": t.title, "text": t.text})
		corpus.Write(append(b, '\n'))
	}
	qrels.WriteString("query-id\tcorpus-id\tscore\n")
	for i, q := range questions {
		id := fmt.Sprintf("q%03d", i)
		b, _ := json.Marshal(map[string]string{"_id": id, "text": q.text})
		queries.Write(append(b, '\n'))
		for _, a := range q.answers {
			fmt.Fprintf(&qrels, "%s\t%s\t1\n", id, a)
		}
	}
	for name, s := range map[string]string{"corpus.jsonl": corpus.String(), "queries.jsonl": queries.String(), "qrels/test.tsv": qrels.String()} {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), []byte(s), 0o644); err != nil {
			return err
		}
	}
	return nil
}

type convoFact struct{ turn, question string }

type convoPair struct{ first, second, question string }

// The facts: what one speaker said, and a question that asks for it in
// other words (as a person asks weeks later).
var convoFacts = []convoFact{
	{"I moved our weekly sync to Thursdays at 3pm, Lea can't make Mondays anymore.", "On which day do we have the weekly catch-up now?"},
	{"The staging database password rotates every 30 days, the reminder goes to the ops channel.", "How often do the credentials for the pre-production DB change?"},
	{"My flight to Lisbon lands at 11:40 on the 14th, so I'll be online in the afternoon.", "When does Mia's plane arrive in Portugal?"},
	{"We picked Postgres over Mongo for the invoices service because of the joins we need.", "Why did the billing backend go with a relational store?"},
	{"The designer sent the new logo, it's the teal one with the rounded corners.", "What colour is the updated brand mark?"},
	{"Support tickets about slow exports went up 40 percent after the last release.", "How much did complaints about downloading reports grow?"},
	{"I'm taking Friday off, my sister is getting married in Porto.", "Why is Jon away at the end of the week?"},
	{"The contractor's invoice was 4,800 euros for the March work.", "How much did the freelancer bill for work done in spring?"},
	{"Let's keep the free tier at three projects per account, sales agreed.", "What is the project limit for users who don't pay?"},
	{"The office wifi password is on the whiteboard next to the coffee machine.", "Where can I find how to log into the internet at work?"},
	{"Our biggest customer, Hartmann GmbH, wants SSO before they renew in June.", "What does the largest client require for their contract extension?"},
	{"The on-call phone is with Priya this week and with me next week.", "Who carries the pager for incidents right now?"},
	{"I switched the CI runners to the ARM machines, builds are twice as fast.", "What made the build pipeline quicker?"},
	{"The quarterly planning offsite is in the mountains near Innsbruck.", "Where is the team retreat for the roadmap taking place?"},
	{"We decided to drop support for Internet Explorer starting in April.", "From when will the old Microsoft browser stop being supported?"},
	{"The API rate limit for partners is 600 requests per minute.", "How many calls per minute may integration partners make?"},
	{"My new desk number is 4.17, next to the kitchen on the fourth floor.", "Where does Mia sit now?"},
	{"The mobile app crash was caused by a null date in the calendar sync.", "What was behind the phone application failing?"},
	{"We're hiring two backend engineers and one data analyst this quarter.", "How many people are we recruiting in the next three months?"},
	{"The backups run at 2am and are kept for 35 days.", "How long do we retain our nightly snapshots?"},
	{"I promised the marketing team the pricing page copy by Wednesday.", "When is the text for the plans page due to marketing?"},
	{"The legacy reporting server will be switched off at the end of May.", "When is the old analytics machine being decommissioned?"},
	{"Tom prefers tea without sugar, don't bring him a latte.", "How does Tom take his hot drink?"},
	{"The customer survey closed with 312 answers, mostly about onboarding.", "How many responses did the user questionnaire get?"},
	{"We agreed that code reviews should be answered within one working day.", "What is the expected turnaround for looking at a pull request?"},
	{"The feature flag for the new editor is called rich_editor_v2.", "What's the toggle name for the redesigned text editor?"},
	{"Our AWS bill jumped because someone left a GPU instance running over the weekend.", "Why were the cloud costs so high last month?"},
	{"The kickoff with the Osaka partner is at 8am our time because of the time difference.", "Why is the first meeting with the Japanese company so early?"},
	{"The keynote slides are in the shared drive under Events slash 2026.", "Where are the presentation files for the conference talk?"},
	{"I booked the big meeting room for the whole Tuesday for interviews.", "Which day is the large conference room reserved for hiring?"},
	{"Search latency went from 120 to 45 milliseconds after adding the index.", "How much faster did lookups get after the database change?"},
	{"Anna is on parental leave until September, Ben covers her accounts.", "Who handles Anna's clients while she is away with the baby?"},
	{"The security audit found two medium issues, both in the file upload.", "What did the penetration test report about attachments?"},
	{"We'll ship the dark mode in version 3.2, not 3.1.", "In which release does the night theme come out?"},
	{"The intern's last day is the 27th, let's do a farewell lunch.", "When does the trainee leave us?"},
	{"The SLA for enterprise customers is 99.95 percent uptime.", "What availability do we promise to our biggest plan?"},
	{"My laptop's battery is swollen, IT is sending a replacement on Monday.", "What is wrong with Mia's computer?"},
	{"Stripe webhooks retry for three days before giving up.", "How long does the payment provider keep resending events?"},
	{"The translation to German is done, French is still with the agency.", "Which language version of the app is not finished yet?"},
	{"We moved the design system to its own repository called tessera.", "What is the name of the repo that holds the UI components?"},
}

var convoPairs = []convoPair{
	{"Nora is leading the billing migration from now on.", "The billing migration is due in the last week of March.", "When is the project that Nora leads supposed to be finished?"},
	{"The Helsinki office opens in October.", "Whoever runs the Helsinki office will report to Sam.", "Who will the head of the new Finnish site report to?"},
	{"Kai owns the search service.", "The search service pages the owner when error rates pass 2 percent.", "At what error rate does Kai get woken up?"},
	{"The Q2 budget for tooling is 20,000 euros.", "Half of the tooling budget is already spent on licences.", "How much money for tools is left for the second quarter?"},
	{"Our status page is hosted by Atlassian.", "Atlassian is raising prices for that plan by 30 percent in July.", "What happens to the cost of the outage page in summer?"},
	{"Lea is the accessibility champion for the web team.", "The accessibility champion reviews every new form before release.", "Who checks new forms before they go out?"},
	{"The Android release is blocked on the Play Store review.", "Play Store reviews take about a week right now.", "How long until the Android version can ship?"},
	{"Raj moved from the mobile team to platform.", "The platform team is working on the new deploy tooling this quarter.", "What is Raj working on now?"},
	{"The offsite dinner is at Gasthaus Stern.", "Gasthaus Stern only takes cash.", "How should we pay at the team dinner?"},
	{"We use Sentry for error tracking.", "The Sentry quota resets on the first of each month.", "When do we get our error tracking allowance back?"},
}

var convoFiller = []string{
	"Sounds good to me.", "Let me check and get back to you.", "Thanks, that helps.", "Haha, fair enough.",
	"Can you send me the link later?", "I'll look at it after lunch.", "Agreed.", "Not sure yet, let's see how it goes.",
	"Did you see the message from yesterday?", "Okay, noted.", "I'm in a meeting until four.", "Makes sense.",
	"Let's talk about it tomorrow.", "Good point.", "I'll ping the others.", "No worries.", "Coffee later?",
	"That took longer than I expected.", "I'll write it down so we don't forget.", "Right, I remember now.",
}

var convoFactsZH = []convoFact{
	{"周会改到每周四下午三点了，因为李娜周一来不了。", "现在每周的例会是星期几？"},
	{"测试环境数据库的密码每三十天更换一次。", "预发布库的口令多久换一次？"},
	{"我们选了 Postgres 而不是 Mongo，因为账单服务需要大量关联查询。", "为什么计费系统用了关系型数据库？"},
	{"新版本的暗色模式推迟到 3.2 才上线。", "夜间主题在哪个版本发布？"},
	{"办公室的无线网络密码写在咖啡机旁边的白板上。", "公司上网的密码在哪里能找到？"},
	{"这周值班手机在王芳那里，下周轮到我。", "现在谁负责接故障告警电话？"},
	{"客户满意度调查一共收到 312 份回复。", "用户问卷最后收回了多少份？"},
	{"备份每天凌晨两点执行，保留三十五天。", "夜间快照会保存多长时间？"},
	{"大客户要求在六月续约之前支持单点登录。", "最大的客户续签合同前提出了什么要求？"},
	{"CI 构建机换成了 ARM 机器以后，速度快了一倍。", "是什么让流水线变快的？"},
}

var convoPairsZH = []convoPair{
	{"以后账单迁移项目由诺拉负责。", "账单迁移必须在三月最后一周完成。", "诺拉负责的项目什么时候截止？"},
	{"搜索服务归凯负责。", "搜索服务的错误率超过百分之二时会呼叫负责人。", "错误率到多少时会叫醒凯？"},
	{"第二季度的工具预算是两万欧元。", "工具预算已经有一半花在许可证上了。", "第二季度买工具还剩多少钱？"},
}

var convoFillerZH = []string{
	"好的，没问题。", "我查一下再回复你。", "谢谢，这个有帮助。", "哈哈，也对。", "稍后把链接发我吧。",
	"午饭后我看看。", "同意。", "还不确定，再看看。", "昨天的消息你看到了吗？", "好，记下了。", "明天再聊吧。", "有道理。",
}
