package zuma

import (
	"encoding/json"
	"fmt"
)

// move is a search move: insert ball at at.
type move struct {
	at   int
	ball byte
}

func encodePlan(moves []move) json.RawMessage {
	plan := make([]Move, len(moves))
	for i, mv := range moves {
		plan[i] = Move{At: mv.at, Ball: string(rune(mv.ball))}
	}
	data, _ := json.Marshal(plan)
	return data
}

// DecodePlan parses a plan JSON array.
func DecodePlan(data json.RawMessage) ([]Move, error) {
	var plan []Move
	if err := json.Unmarshal(data, &plan); err != nil {
		return nil, fmt.Errorf("plan: %w", err)
	}
	return plan, nil
}
