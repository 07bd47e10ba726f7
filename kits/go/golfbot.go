// golfbot.go: the golfref bot protocol (version 3) for Go bots, standard library only.
//
// Write a choose function and hand it to Play from main:
//
//	func choose(view *View, legal []string) string { return legal[0] }
//
//	func main() { Play("my_bot", "1", choose) }
//
// Play reads golfref's messages on stdin, answers hello with ready, builds a View for
// every request and answers with what choose returns, as it is (one of legal, or the
// referee records an illegal_action fault naming the legal choices). A panic in choose is
// not recovered: it ends the bot with the panic's message and stack on stderr and exit
// status 2, so that a bug shows instead of hiding behind a move the bot did not choose.
// Unknown message types and the notices (hole_end, match_end) are ignored. Stdout carries
// the protocol: print anything else (debugging) to os.Stderr, which the log keeps.
//
// The fields are those of docs/PROTOCOL.md, in Go's spelling (stock_size: StockSize). A
// card is a string such as "TH" or "XR#2", "" where this seat has not seen it or there is
// none; any other string JSON gives as null is "" too, and a number that may be null is a
// pointer, nil for null (an option that is off, a seat that is nobody). Rules.Points,
// Rules.GridScore and Rules.HoleScores score a card, a grid and a hole as golfref does.
//
// This file and the bot's share package main: its unexported names all start with "golf"
// so that they leave a bot's own names free.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Protocol is the protocol version this file speaks.
const Protocol = 3

// Rules is hello.rules: the match's rule set, every field of docs/PROTOCOL.md#hellorules.
type Rules struct {
	Preset         string `json:"preset"`
	Players        int    `json:"players"`
	Layout         string `json:"layout"`
	Rows           int    `json:"-"` // Layout's rows and columns
	Cols           int    `json:"-"`
	Decks          int    `json:"decks"`
	Jokers         *int   `json:"jokers"`
	Twos           int    `json:"twos"`
	CourtValues    string `json:"court_values"`
	RevealCount    int    `json:"reveal_count"`
	Reveal         string `json:"reveal"`
	RevealChoice   string `json:"reveal_choice"`
	FlipAfterThrow string `json:"flip_after_throw"`
	SwapFace       string `json:"swap_face"`
	Knocking       bool   `json:"knocking"`
	KnockPenalty   *int   `json:"knock_penalty"`
	KnockDouble    bool   `json:"knock_double"`
	Lines          string `json:"lines"`
	Cancel         string `json:"cancel"`
	PairScope      string `json:"pair_scope"`
	BlockBonus     *int   `json:"block_bonus"`
	CardPowers     bool   `json:"card_powers"`
	Holes          int    `json:"holes"`
	TurnLimit      int    `json:"turn_limit"`

	// The house options (protocol 3; docs/RULES.md#house-options).

	// CardValues is the whole card table by rank letter ("X": a joker).
	CardValues map[string]int `json:"card_values"`
	// SuitValues gives some cards ("JH") other points than their rank's.
	SuitValues map[string]int `json:"suit_values"`
	// JokerCount is the jokers in the whole shoe (nil: two per deck).
	JokerCount *int `json:"joker_count"`
	// JokerPair is what a cancelled line of jokers scores in total.
	JokerPair *int `json:"joker_pair"`
	// NegativePairs is "cancel", or "keep": a cancelled line with a negative card keeps its points.
	NegativePairs    string `json:"negative_pairs"`
	TwoColumnBonus   *int   `json:"two_column_bonus"`
	JackColumnsBonus *int   `json:"jack_columns_bonus"`
	// ExactScore is [N, M]: a grid score of exactly N becomes M.
	ExactScore *[2]int `json:"exact_score"`
	// The end-of-hole adjustments that compare the players' scores: HoleScores applies them.
	CloserPenalty     *int `json:"closer_penalty"`
	CloserBonus       *int `json:"closer_bonus"`
	LowScoreBonus     *int `json:"low_score_bonus"`
	TiePenalty        *int `json:"tie_penalty"`
	FlipInsteadOfDraw bool `json:"flip_instead_of_draw"`
	FlipOut           *int `json:"flip_out"`
}

// Time is hello.time, in milliseconds (MatchMs 0: no limit).
type Time struct {
	StartupMs   int `json:"startup_ms"`
	MoveMs      int `json:"move_ms"`
	BankMs      int `json:"bank_ms"`
	IncrementMs int `json:"increment_ms"`
	GraceMs     int `json:"grace_ms"`
	MatchMs     int `json:"match_ms"`
}

// Event is one event of a request (docs/PROTOCOL.md#events); fields its kind lacks are zero or nil.
type Event struct {
	Event     string  `json:"event"`
	Seat      *int    `json:"seat"`
	Slot      *int    `json:"slot"`
	Card      string  `json:"card"`
	From      string  `json:"from"`
	Discarded string  `json:"discarded"`
	Target    *[2]int `json:"target"`
	// Cards is a reshuffle's count, or a king's two cards [[seat, slot], [seat, slot]], as JSON.
	Cards json.RawMessage `json:"cards"`
}

// View is a request's view of the table, with its events and the match's rules and time.
type View struct {
	Rules     *Rules  `json:"-"`
	Time      *Time   `json:"-"`
	RequestID int     `json:"-"`
	TimeMs    int     `json:"-"` // what this decision may take
	Events    []Event `json:"-"` // what happened since this seat's previous request

	Seat        int        `json:"seat"`
	Hole        int        `json:"hole"`
	Starter     int        `json:"starter"`
	ToMove      *int       `json:"to_move"`
	Decision    string     `json:"decision"` // reveal, draw, place, flip, target
	Grids       [][]string `json:"grids"`    // by seat, row-major; "" where unseen
	FaceUp      [][]bool   `json:"face_up"`
	Discard     []string   `json:"discard"` // bottom first: the last is the top
	StockSize   int        `json:"stock_size"`
	Drawn       string     `json:"drawn"`
	DrawnFrom   string     `json:"drawn_from"`
	Power       string     `json:"power"`
	FirstTarget *[2]int    `json:"first_target"` // a king's first card: seat, slot
	Closer      *int       `json:"closer"`
	Knocker     *int       `json:"knocker"`
	Turns       []int      `json:"turns"`
	Totals      []int      `json:"totals"`
	HoleScores  [][]int    `json:"hole_scores"` // by hole, then by seat
}

// Grid is this seat's own grid.
func (v *View) Grid() []string { return v.Grids[v.Seat] }

// Points is a card's points under these rules ("", unseen, counts unseen): its suit's own
// value (SuitValues) where it has one, else its rank's in the card table (CardValues).
func (r *Rules) Points(card string, unseen int) int {
	if card == "" {
		return unseen
	}
	if len(card) >= 2 {
		if points, ok := r.SuitValues[card[:2]]; ok {
			return points
		}
	}
	if points, ok := r.CardValues[card[:1]]; ok {
		return points
	}
	// A protocol-2 hello has no card table: the one its options make.
	court := r.CourtValues == "11/12"
	switch card[0] {
	case 'A':
		return 1
	case '2':
		return r.Twos
	case 'T':
		return 10
	case 'J':
		if court {
			return 11
		}
		return 10
	case 'Q':
		if court {
			return 12
		}
		return 10
	case 'K':
		return 0
	case 'X':
		if r.Jokers != nil {
			return *r.Jokers
		}
		return 0
	}
	return int(card[0] - '0')
}

// golfGroup is a line that may cancel (cancel: line) or a group whose pairs cancel (cancel: pairs).
type golfGroup struct {
	column bool
	slots  []int
}

// golfGroups are the rules' groups in golfref's scan order: columns, rows, diagonals.
func (r *Rules) golfGroups() []golfGroup {
	rows, cols := r.Rows, r.Cols
	var all []golfGroup
	if r.Cancel == "pairs" && r.PairScope == "grid" {
		grid := make([]int, rows*cols)
		for s := range grid {
			grid[s] = s
		}
		all = append(all, golfGroup{false, grid})
	} else {
		line := r.Cancel == "line"
		withRows := r.PairScope == "columns+rows"
		if line {
			withRows = r.Lines != "columns"
		}
		for c := 0; c < cols; c++ {
			g := golfGroup{column: true}
			for i := 0; i < rows; i++ {
				g.slots = append(g.slots, i*cols+c)
			}
			all = append(all, g)
		}
		for i := 0; withRows && i < rows; i++ {
			g := golfGroup{}
			for c := 0; c < cols; c++ {
				g.slots = append(g.slots, i*cols+c)
			}
			all = append(all, g)
		}
		if line && r.Lines == "columns+rows+diagonals" && rows == cols {
			down, up := golfGroup{}, golfGroup{}
			for i := 0; i < rows; i++ {
				down.slots = append(down.slots, i*cols+i)
				up.slots = append(up.slots, i*cols+cols-1-i)
			}
			all = append(all, down, up)
		}
	}
	var out []golfGroup
	for _, g := range all {
		if len(g.slots) >= 2 { // a line of one card is no line
			out = append(out, g)
		}
	}
	return out
}

// golfShares splits total over n cards as golfref splits a block's or a joker pair's total
// (Python's divmod: the first cards get one more).
func golfShares(total, n int) []int {
	share := total / n
	if total%n != 0 && total < 0 {
		share-- // Go's division truncates toward zero; golfref's floors
	}
	rest := total - share*n
	out := make([]int, n)
	for i := range out {
		out[i] = share
		if i < rest {
			out[i]++
		}
	}
	return out
}

// GridScore is a grid's score as golfref scores it (docs/RULES.md, "Card values and
// scoring"), ExactScore applied: blocks, cancelled lines or pairs, JokerPair, NegativePairs
// and the column bonuses all count. An unseen card ("") counts unseen and cancels with
// nothing: the score of a grid with one is an estimate. The adjustments between players need
// every grid: HoleScores.
func (r *Rules) GridScore(grid []string, unseen int) int {
	rows, cols := r.Rows, r.Cols
	ranks := make([]byte, len(grid)) // 0 where unseen
	points := make([]int, len(grid))
	for s, card := range grid {
		if card != "" {
			ranks[s] = card[0]
		}
		points[s] = r.Points(card, unseen)
	}
	own := append([]int(nil), points...) // a card is negative by its own points, not by a block's share
	// A card is decided once: a block card keeps its share, whatever line runs through it.
	done := make([]bool, len(grid))
	if r.BlockBonus != nil && rows >= 2 && cols >= 2 {
		for i := 0; i+1 < rows; i++ {
			for c := 0; c+1 < cols; c++ {
				square := []int{i*cols + c, i*cols + c + 1, (i+1)*cols + c, (i+1)*cols + c + 1}
				same := ranks[square[0]] != 0
				for _, s := range square {
					same = same && !done[s] && ranks[s] == ranks[square[0]]
				}
				if !same {
					continue
				}
				for k, share := range golfShares(*r.BlockBonus, 4) {
					done[square[k]] = true
					points[square[k]] = share
				}
			}
		}
	}
	var cancelled []golfGroup
	for _, g := range r.golfGroups() {
		if r.Cancel == "line" {
			first := ranks[g.slots[0]]
			same := first != 0
			for _, s := range g.slots {
				same = same && ranks[s] == first
			}
			if same {
				cancelled = append(cancelled, g)
			}
			continue
		}
		hit := golfGroup{column: g.column}
		for _, s := range g.slots {
			count := 0
			for _, t := range g.slots {
				if ranks[t] == ranks[s] {
					count++
				}
			}
			if ranks[s] != 0 && count >= 2 {
				hit.slots = append(hit.slots, s)
			}
		}
		if len(hit.slots) > 0 {
			cancelled = append(cancelled, hit)
		}
	}
	columns := map[byte]int{} // how many cancelled columns each rank is in
	for _, g := range cancelled {
		// Under cancel: pairs each rank's cards are a line of their own, in the order they first come.
		var lines [][]int
		at := map[byte]int{}
		for _, s := range g.slots {
			k, seen := at[ranks[s]]
			if !seen {
				k = len(lines)
				at[ranks[s]] = k
				lines = append(lines, nil)
			}
			lines[k] = append(lines[k], s)
		}
		for _, line := range lines {
			rank := ranks[line[0]]
			if g.column {
				columns[rank]++
			}
			negative := false
			for _, s := range line {
				negative = negative || own[s] < 0
			}
			// A card a block or an earlier line decided keeps what it got there.
			switch {
			case r.JokerPair != nil && rank == 'X':
				for k, share := range golfShares(*r.JokerPair, len(line)) {
					if !done[line[k]] {
						points[line[k]] = share
					}
				}
			case r.NegativePairs == "keep" && negative:
			default:
				for _, s := range line {
					if !done[s] {
						points[s] = 0
					}
				}
			}
			for _, s := range line {
				done[s] = true
			}
		}
	}
	total := 0
	for _, p := range points {
		total += p
	}
	for _, n := range columns {
		if r.TwoColumnBonus != nil && n >= 2 {
			total += *r.TwoColumnBonus
		}
	}
	if r.JackColumnsBonus != nil && columns['J'] >= 2 {
		total += *r.JackColumnsBonus
	}
	if r.ExactScore != nil && total == r.ExactScore[0] {
		total = r.ExactScore[1]
	}
	return total
}

// HoleScores is every seat's hole score as golfref scores it: GridScore, a failed knock's
// penalty (a tie for lowest fails), then in order CloserPenalty (unless the one who ended
// the hole first is lowest), CloserBonus, LowScoreBonus and last TiePenalty. closer and
// knocker are the view's: rules.HoleScores(view.Grids, view.Closer, view.Knocker, 5).
func (r *Rules) HoleScores(grids [][]string, closer, knocker *int, unseen int) []int {
	raw := make([]int, len(grids))
	for s, grid := range grids {
		raw[s] = r.GridScore(grid, unseen)
	}
	out := append([]int(nil), raw...)
	if knocker != nil {
		k := *knocker
		failed := false
		for s, score := range raw {
			failed = failed || (s != k && score <= raw[k])
		}
		switch {
		case !failed:
		case r.KnockDouble:
			if raw[k] > 0 { // doubled: a score of 0 or less stays as it is
				out[k] += raw[k]
			}
		case r.KnockPenalty != nil:
			out[k] += *r.KnockPenalty
		}
	}
	first := closer
	if first == nil {
		first = knocker
	}
	if first != nil && r.CloserPenalty != nil && out[*first] > golfLowest(out) {
		out[*first] += *r.CloserPenalty
	}
	if first != nil && r.CloserBonus != nil {
		out[*first] += *r.CloserBonus
	}
	if r.LowScoreBonus != nil {
		low := golfLowest(out)
		for s := range out {
			if out[s] == low {
				out[s] += *r.LowScoreBonus
			}
		}
	}
	if r.TiePenalty != nil {
		before := append([]int(nil), out...)
		for s := range out {
			for t := range before {
				if t != s && before[t] == before[s] {
					out[s] += *r.TiePenalty
					break
				}
			}
		}
	}
	return out
}

// golfLowest is the lowest of scores (0 for none).
func golfLowest(scores []int) int {
	low := 0
	for i, score := range scores {
		if i == 0 || score < low {
			low = score
		}
	}
	return low
}

// golfSend writes one message as one line: os.Stdout is unbuffered, so the line is out at once.
func golfSend(message any) {
	out := json.NewEncoder(os.Stdout)
	out.SetEscapeHTML(false) // the action as choose wrote it, "<" and all
	if err := out.Encode(message); err != nil {
		golfFail("cannot send a message: %v", err)
	}
}

// golfFail ends the bot with an error line, on a message the kit cannot read (the kit and
// the protocol disagree) or a line it cannot write.
func golfFail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "golfbot: "+format+"\n", args...)
	os.Exit(1)
}

// Play plays one match on stdin/stdout: ready on hello, choose on every request, until
// goodbye or the end of input.
func Play(name, version string, choose func(view *View, legal []string) string) {
	in := bufio.NewReader(os.Stdin) // no line length limit: a request holds the whole discard pile
	var rules *Rules
	var time *Time
	for {
		line, err := in.ReadBytes('\n')
		var head struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(line, &head) != nil {
			head.Type = "" // golfref never sends a line that is not JSON; an empty last line is none
		}
		switch head.Type {
		case "hello":
			var hello struct {
				Rules Rules `json:"rules"`
				Time  Time  `json:"time"`
			}
			hello.Rules.NegativePairs = "cancel" // a protocol-2 hello has no house options
			if err := json.Unmarshal(line, &hello); err != nil {
				golfFail("cannot read hello: %v", err)
			}
			rows, cols, _ := strings.Cut(hello.Rules.Layout, "x")
			hello.Rules.Rows, _ = strconv.Atoi(rows)
			hello.Rules.Cols, _ = strconv.Atoi(cols)
			rules, time = &hello.Rules, &hello.Time
			golfSend(struct {
				Type    string `json:"type"`
				Name    string `json:"name"`
				Version string `json:"version"`
			}{"ready", name, version})
		case "request":
			if rules == nil {
				break // no request comes before hello
			}
			var request struct {
				ID     int      `json:"id"`
				View   View     `json:"view"`
				Events []Event  `json:"events"`
				Legal  []string `json:"legal"`
				TimeMs int      `json:"time_ms"`
			}
			if err := json.Unmarshal(line, &request); err != nil {
				golfFail("cannot read request: %v", err)
			}
			view := &request.View
			view.Rules, view.Time = rules, time
			view.RequestID, view.TimeMs, view.Events = request.ID, request.TimeMs, request.Events
			// Sent as it is: an action not in legal is the referee's illegal_action fault.
			golfSend(struct {
				Type   string `json:"type"`
				ID     int    `json:"id"`
				Action string `json:"action"`
			}{"answer", request.ID, choose(view, request.Legal)})
		case "goodbye":
			return
		}
		if err != nil {
			return // the end of input: the referee has gone
		}
	}
}
