// A bot on the Go kit that answers every request with what the kit read
// (tests/test_kit_rules.py): hello.rules as Rules holds it, and Points of every card, each
// grid's GridScore and every seat's HoleScores. The test writes it as the kit's bot.go.
package main

import "encoding/json"

const unseen = 1000 // no card is worth this: the test tells an unseen card by it

func echo(view *View, legal []string) string {
	r := view.Rules
	// Rules' own JSON, which every field's tag names: the layout as rows and cols, as the kit holds it.
	var rules map[string]any
	text, err := json.Marshal(r)
	if err == nil {
		err = json.Unmarshal(text, &rules)
	}
	if err != nil {
		panic(err)
	}
	delete(rules, "layout")
	rules["rows"], rules["cols"] = r.Rows, r.Cols
	grids := make([][]int, len(view.Grids))
	gridScores := make([]int, len(view.Grids))
	for s, grid := range view.Grids {
		for _, card := range grid {
			grids[s] = append(grids[s], r.Points(card, unseen))
		}
		gridScores[s] = r.GridScore(grid, unseen)
	}
	discard := []int{}
	for _, card := range view.Discard {
		discard = append(discard, r.Points(card, unseen))
	}
	text, err = json.Marshal(map[string]any{
		"rules":       rules,
		"grids":       grids,
		"discard":     discard,
		"drawn":       r.Points(view.Drawn, unseen),
		"grid_scores": gridScores,
		"hole_scores": r.HoleScores(view.Grids, view.Closer, view.Knocker, unseen),
	})
	if err != nil {
		panic(err)
	}
	return string(text)
}

func main() {
	Play("go-echo", "1", echo)
}
