//go:build race

package markdown

// sparser is how many times fewer places a streamed document is rendered at. Under the race
// detector a render costs about ten times as much, and the streaming checks start no
// goroutines for it to watch, so they render at a sixteenth as many places; .ci/run also runs
// this package without the detector, at every place.
const sparser = 16
