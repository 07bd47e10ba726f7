// The Go starter bot: keeps low cards, swaps out its worst one. Edit choose.
// Build: go build -buildvcs=false -o bot .   Run: ./bot
// golfbot.go, beside this file, does the protocol.
package main

import (
	"fmt"
	"strconv"
	"strings"
)

const unseen = 5 // points a card this seat has not seen is guessed at

func choose(view *View, legal []string) string {
	points := func(card string) int { return view.Rules.Points(card, unseen) }
	grid := view.Grid()
	worst := 0
	for slot := range grid {
		if points(grid[slot]) > points(grid[worst]) {
			worst = slot
		}
	}
	swap := fmt.Sprintf("swap:%d", worst)
	switch view.Decision {
	case "draw":
		top := view.Discard[len(view.Discard)-1]
		if has(legal, "discard") && points(top) < points(grid[worst])-2 {
			return "discard"
		}
		return "stock"
	case "place":
		if points(view.Drawn) < points(grid[worst]) {
			return swap
		}
		if has(legal, "power") {
			return "power" // a J, Q or K with card powers on: thrown away for its power
		}
		if has(legal, "throw") {
			return "throw"
		}
		return swap
	case "flip":
		// Turn up a card we have not seen: the flip then tells us something.
		for _, action := range legal {
			slot, err := strconv.Atoi(strings.TrimPrefix(action, "flip:"))
			if strings.HasPrefix(action, "flip:") && err == nil && grid[slot] == "" {
				return action
			}
		}
	case "target":
		// A power's target ("target:SEAT:SLOT"): a card we have not seen, if any.
		for _, action := range legal {
			var seat, slot int
			if _, err := fmt.Sscanf(action, "target:%d:%d", &seat, &slot); err == nil && view.Grids[seat][slot] == "" {
				return action
			}
		}
	}
	return legal[0] // reveal: the first legal choice
}

func has(legal []string, action string) bool {
	for _, a := range legal {
		if a == action {
			return true
		}
	}
	return false
}

func main() {
	Play("go-starter", "1", choose)
}
