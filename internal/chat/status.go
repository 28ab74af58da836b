package chat

// Status is where a run is in its life:
//
//	queued → running → succeeded | failed | cancelled
//	queued → cancelled | failed   (failed before any request, e.g. credentials_unresolved)
//	queued | running → interrupted (only by recovery, when its process died)
type Status string

// The states of a run.
const (
	StatusQueued      Status = "queued"
	StatusRunning     Status = "running"
	StatusSucceeded   Status = "succeeded"
	StatusFailed      Status = "failed"
	StatusCancelled   Status = "cancelled"
	StatusInterrupted Status = "interrupted"
)

// EndedWithoutResult is the classification of a run whose events stopped without a terminal
// event: the stream broke somewhere between the endpoint and the reader.
var EndedWithoutResult = NewClassification(Network, "the run ended without a result")

// Outcome is how a run ended, decided from its terminal event by Decide.
type Outcome struct {
	Status Status
	// Retry is the failure's classification when Status is StatusFailed; nil otherwise.
	Retry *Classification
}

// Decide is the one rule from a run's terminal event to its outcome, used by the recorder,
// the screen and print mode alike. ok is false when the events ended without a terminal
// event (the channel closed early): that is a failure, EndedWithoutResult. A failure classed
// Cancelled is the operator's stop, not a failure, and ends cancelled like EventCancelled. A
// non-terminal event decides nothing and is treated like a missing one.
func Decide(ev Event, ok bool) Outcome {
	switch {
	case ok && ev.Kind == EventFinished:
		return Outcome{Status: StatusSucceeded}
	case ok && ev.Kind == EventCancelled, ok && ev.Kind == EventFailed && ev.Class.Class == Cancelled:
		return Outcome{Status: StatusCancelled}
	case ok && ev.Kind == EventFailed:
		c := ev.Class
		return Outcome{Status: StatusFailed, Retry: &c}
	}
	c := EndedWithoutResult
	return Outcome{Status: StatusFailed, Retry: &c}
}

// RunResult is how a run ended, as it was stored: what Tier 2 decides a retry from, in both
// front ends.
type RunResult struct {
	RunID int64
	// AnchorID is the operator message the run answered, which a retry regenerates from.
	AnchorID int64
	Status   Status
	// Retry is the stored classification of a failed or interrupted run; nil otherwise.
	Retry *Classification
	// Attempts counts the requests the run sent: 0 when endpoint memory held it back.
	Attempts int
}
