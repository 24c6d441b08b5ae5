package queue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/hibiken/asynq"
)

// TypeGenerate is the asynq task type of a generation (store.Generation):
// one task works through its candidates in order (docs/generate.md).
const TypeGenerate = "puzzled:generate"

// GenerateTimeout is the asynq timeout of a generation's task. A
// generation may take longer: the task then ends, asynq runs it again,
// and it resumes at the first candidate not stored.
const GenerateTimeout = time.Hour

// generatePayload is the body of a generation's task.
type generatePayload struct {
	GenerationID int64 `json:"generation_id"`
}

// GenerateTaskID is the asynq task id of generation id's task.
func GenerateTaskID(id int64) string { return "generate:" + strconv.FormatInt(id, 10) }

// EnqueueGenerate hands generation id to asynq on the bulk queue; one
// whose task is live is left as it is.
func (c *Client) EnqueueGenerate(ctx context.Context, id int64) error {
	payload, _ := json.Marshal(generatePayload{GenerationID: id})
	_, err := c.client.EnqueueContext(ctx, asynq.NewTask(TypeGenerate, payload),
		asynq.Queue(Bulk), asynq.TaskID(GenerateTaskID(id)), asynq.MaxRetry(maxRetry), asynq.Timeout(GenerateTimeout))
	if err != nil && !errors.Is(err, asynq.ErrTaskIDConflict) {
		return fmt.Errorf("queue: enqueue %s: %w", GenerateTaskID(id), err)
	}
	return nil
}

// GenerationOf decodes a generation task's payload.
func GenerationOf(t *asynq.Task) (int64, error) {
	var p generatePayload
	if err := json.Unmarshal(t.Payload(), &p); err != nil || p.GenerationID <= 0 {
		return 0, fmt.Errorf("queue: bad generate payload %q: %w", t.Payload(), asynq.SkipRetry)
	}
	return p.GenerationID, nil
}
