#!/usr/bin/env bash
# bench.sh measures parley end to end against the floor, on this machine, in one run.
#
# The built binary streams replies of N realistic markdown tokens (paragraphs, lists, fenced
# code) from `parley demo-server --pace 0` (a separate process on 127.0.0.1; nothing leaves the
# machine), in a real pseudo-terminal (tmux), and in print mode to a pipe. Each case runs RUNS
# times; the medians of CPU seconds (user+sys), wall seconds and peak RSS from /usr/bin/time -v
# are printed next to the floor programs measured in the same run on the same stream:
#   read    scripts/floor/read: go-openai reads the stream and does nothing
#   render  scripts/floor/render: glamour renders the final text once, at the screen's width
# and the ratios that the targets in docs/benchmarks.md are stated in. Then a session of
# 10,000 messages is stored and opened in tmux; the time until its last message is on screen
# is printed. Then latency, in a 120×40 pane: how long a key takes to show while replies of
# 10k, 100k and 400k tokens stream unpaced (and 400k inside one code block), how long esc
# takes to stop a run 0.3, 1.5 and 3 s into it (a 1.5M-token reply too, since 400k tokens
# are streamed within 1.5 s), each beside the same key on an idle screen; and 25 characters
# typed with 120 KB pasted in the input beside an empty one, and 25 typed lines of 95.
# scripts/benchkit does the timing (send-keys, then polling the screen through tmux control
# mode). The persistence cost (CPU with and without history writes; a 100k-token reply at
# reading speed is the store cost) and the per-delta, per-message and per-key costs are Go
# benchmarks, run at the end (SKIP_GO=1 leaves them out).
#
# Needs: go, tmux, GNU time as /usr/bin/time (Debian: apt-get install tmux time).
# Settings (environment): RUNS (default 3), SIZES (default "2000 4000 20000 100000"),
# COLS×ROWS of the terminal (default 100×30); LAT_SIZES (default "10000 100000 400000
# 400000:open"), KEYS (keys measured while each reply streams, at least; default 12),
# ESC_RUNS (esc presses per delay; default 4), ESC_LONG (default 1500000); LATENCY=0 leaves
# latency out, LATENCY=only runs only it. Takes about four minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS=${RUNS:-3}
SIZES=${SIZES:-"2000 4000 20000 100000"}
COLS=${COLS:-100}
ROWS=${ROWS:-30}
LATENCY=${LATENCY:-1}
LAT_COLS=120
LAT_ROWS=40
LAT_SIZES=${LAT_SIZES:-"10000 100000 400000 400000:open"}
KEYS=${KEYS:-12}
ESC_RUNS=${ESC_RUNS:-4}
ESC_LONG=${ESC_LONG:-1500000}
WIDTH=$((COLS - 2)) # the transcript's text width: the screen less the selection gutter

for tool in go tmux /usr/bin/time; do
	command -v "$tool" >/dev/null || { echo "bench.sh needs $tool (Debian: apt-get install tmux time)" >&2; exit 2; }
done
case $(/usr/bin/time -v true 2>&1) in
*"Maximum resident"*) ;;
*) echo "bench.sh needs GNU time at /usr/bin/time (Debian: apt-get install time)" >&2; exit 2 ;;
esac

work=$(mktemp -d)
sock="parley-bench-$$"
servers=()
cleanup() {
	tmux -L "$sock" kill-server 2>/dev/null || true
	for pid in "${servers[@]}"; do kill "$pid" 2>/dev/null || true; done
	rm -rf "$work"
}
trap cleanup EXIT

echo "parley bench on $(nproc) cores, $(go version | cut -d' ' -f3), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "building…"
go build -o "$work/parley" .
go build -o "$work/read" ./scripts/floor/read
go build -o "$work/render" ./scripts/floor/render
go build -o "$work/benchkit" ./scripts/benchkit
bin=$work/parley

# start_server N [FLAGS]: starts a demo server streaming N tokens at full speed; sets $url.
start_server() {
	local out=$work/server-$1.out
	"$bin" demo-server --addr 127.0.0.1:0 --pace 0 --tokens "$1" "${@:2}" >"$out" 2>&1 &
	servers+=($!)
	for _ in $(seq 100); do
		url=$(grep -o 'http://127\.0\.0\.1:[0-9]*/v1' "$out" | head -1 || true)
		[ -n "$url" ] && return
		sleep 0.05
	done
	echo "demo server did not start: $(cat "$out")" >&2
	exit 1
}

# measure FILE: "cpu wall rss_mb" from a /usr/bin/time -v report.
measure() {
	awk -F': ' '
		/User time/ {u=$2} /System time/ {s=$2} /Maximum resident/ {r=$2}
		/Elapsed \(wall clock\)/ {n=split($2, p, ":"); w=0; for (i=1; i<=n; i++) w=w*60+p[i]}
		END {printf "%.3f %.3f %.1f\n", u+s, w, r/1024}' "$1"
}

# median: the median of the numbers on stdin, one a line.
median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else printf "%.3f\n", (a[NR/2]+a[NR/2+1])/2}'; }

# col K FILE: column K of every line of FILE.
col() { awk -v k="$1" '{print $k}' "$2"; }

screen() { tmux -L "$sock" capture-pane -p -t bench; }

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# wait_idle: waits until the header (the first line) says the screen is idle.
wait_idle() {
	local end=$((SECONDS + 60))
	local s
	until s=$(screen) && [[ ${s%%$'\n'*} =~ \ idle(\ |$) ]]; do
		[ $SECONDS -lt $end ] || { echo "timed out waiting for idle; screen:" >&2; screen >&2; exit 1; }
		sleep 0.02
	done
}

# wait_screen TEXT [SECONDS]: waits until the pane shows TEXT.
wait_screen() {
	local end=$((SECONDS + ${2:-30}))
	until [[ $(screen) == *"$1"* ]]; do
		[ $SECONDS -lt $end ] || { echo "timed out waiting for '$1'; screen:" >&2; screen >&2; exit 1; }
		sleep 0.02
	done
}

# tui_run N I: one reply of N tokens in the chat screen under tmux. Appends
# "cpu wall rss reply_wall" to $work/tui-N: the process's CPU, wall and peak RSS, and the
# seconds from pressing enter until the whole reply is on screen and the run is stored.
tui_run() {
	local home=$work/home-tui-$1-$2 tf=$work/time-tui-$1-$2 t0 status bytes run_s
	mkdir -p "$home"
	tmux -L "$sock" new-session -d -s bench -x "$COLS" -y "$ROWS" \
		"PARLEY_HOME=$home /usr/bin/time -v -o $tf $bin --base-url $url --model bench"
	wait_idle
	tmux -L "$sock" send-keys -t bench -l "write a long answer"
	t0=$(now_ms)
	tmux -L "$sock" send-keys -t bench Enter
	read -r status bytes run_s < <("$work/benchkit" wait "$home")
	[ "$status" = succeeded ] || { echo "tui run $1/$2: reply $status" >&2; exit 1; }
	wait_idle
	local reply_wall=$(($(now_ms) - t0))
	tmux -L "$sock" send-keys -t bench C-d
	for _ in $(seq 200); do grep -qs "Exit status" "$tf" && break; sleep 0.05; done
	grep -q "Exit status: 0" "$tf" || { echo "tui run $1/$2 did not exit cleanly:" >&2; cat "$tf" >&2; exit 1; }
	echo "$(measure "$tf") $(awk -v ms="$reply_wall" 'BEGIN {print ms / 1000}')" >>"$work/tui-$1"
	[ "$bytes" = "$(wc -c <"$work/reply-$1.md")" ] || { echo "tui run $1/$2 stored $bytes bytes" >&2; exit 1; }
}

# print_run N I: print mode to a pipe, history on. Appends "cpu wall rss" to $work/print-N.
print_run() {
	local home=$work/home-print-$1-$2 tf=$work/time-print-$1-$2
	mkdir -p "$home"
	PARLEY_HOME=$home /usr/bin/time -v -o "$tf" "$bin" -p "write a long answer" --base-url "$url" --model bench |
		wc -c >"$work/print-bytes"
	measure "$tf" >>"$work/print-$1"
}

# floor_runs N I: both floors on the same stream. Appends "cpu wall rss" to $work/read-N and
# $work/render-N.
floor_runs() {
	/usr/bin/time -v -o "$work/t" "$work/read" --base-url "$url" 2>/dev/null
	measure "$work/t" >>"$work/read-$1"
	/usr/bin/time -v -o "$work/t" "$work/render" --width "$WIDTH" <"$work/reply-$1.md" >/dev/null
	measure "$work/t" >>"$work/render-$1"
}

med() { col "$1" "$2" | median; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
check() { # check NAME VALUE OP LIMIT
	local ok
	ok=$(awk -v v="$2" -v l="$4" -v op="$3" 'BEGIN {print (op == "<=" ? v <= l : v >= l) ? "ok" : "MISSED"}')
	printf "  %-62s %8s %s %-6s %s\n" "$1" "$2" "$3" "$4" "$ok"
}

# cpu_bench: CPU, wall and RSS of parley in tmux and in print mode beside the floors.
cpu_bench() {
	for n in $SIZES; do
		start_server "$n"
		"$work/read" --base-url "$url" --out "$work/reply-$n.md" 2>/dev/null
		printf "%7d tokens (%d bytes):" "$n" "$(wc -c <"$work/reply-$n.md")"
		for i in $(seq "$RUNS"); do
			floor_runs "$n" "$i"
			tui_run "$n" "$i"
			[ "$n" = 100000 ] && print_run "$n" "$i"
			printf " %d" "$i"
		done
		echo
		kill "${servers[-1]}" 2>/dev/null || true
	done

	echo
	echo "medians of $RUNS runs; CPU = user+sys seconds; RSS = peak MB; terminal ${COLS}x${ROWS}"
	echo "tmux: parley's CPU, its process's wall, enter → reply on screen (s), peak RSS (MB);"
	echo "floors: read = go-openai reads the stream, render = glamour renders the final text once"
	printf "%8s | %7s %7s %7s %6s | %8s %8s | %8s %8s | %9s %7s %7s\n" tokens \
		cpu proc_s reply_s rss read_cpu rend_cpu read_rss rend_rss "cpu/floor" "rss/rend" "per_tok"
	for n in $SIZES; do
		tc=$(med 1 "$work/tui-$n"); tw=$(med 2 "$work/tui-$n"); tr=$(med 3 "$work/tui-$n"); rw=$(med 4 "$work/tui-$n")
		rc=$(med 1 "$work/read-$n"); rr=$(med 3 "$work/read-$n")
		gc=$(med 1 "$work/render-$n"); gr=$(med 3 "$work/render-$n")
		floor=$(awk -v a="$rc" -v b="$gc" 'BEGIN {print a + b}')
		printf "%8d | %7.3f %7.3f %7.3f %6.1f | %8.3f %8.3f | %8.1f %8.1f | %9s %7s %5.1fµs\n" "$n" \
			"$tc" "$tw" "$rw" "$tr" "$rc" "$gc" "$rr" "$gr" "$(ratio "$tc" "$floor")" "$(ratio "$tr" "$gr")" \
			"$(awk -v c="$tc" -v n="$n" 'BEGIN {print c / n * 1e6}')"
	done

	echo
	echo "targets:"
	for n in 20000 100000; do
		[ -f "$work/tui-$n" ] || continue
		floor=$(awk -v a="$(med 1 "$work/read-$n")" -v b="$(med 1 "$work/render-$n")" 'BEGIN {print a + b}')
		check "$n tokens in tmux: CPU / (read + render floor)" "$(ratio "$(med 1 "$work/tui-$n")" "$floor")" "<=" 2
	done
	if [ -f "$work/print-100000" ]; then
		pc=$(med 1 "$work/print-100000")
		echo "  print mode to a pipe, 100000 tokens, history on: CPU $pc s, wall $(med 2 "$work/print-100000") s, RSS $(med 3 "$work/print-100000") MB"
		check "print mode, 100000 tokens: CPU / read floor" "$(ratio "$pc" "$(med 1 "$work/read-100000")")" "<=" 2
	fi
	if [ -f "$work/tui-4000" ]; then
		check "4000 tokens in tmux: CPU seconds" "$(med 1 "$work/tui-4000")" "<=" 1.4
		check "4000 tokens: the quadratic peer's 73 s / parley's CPU" "$(ratio 73 "$(med 1 "$work/tui-4000")")" ">=" 50
	fi
	if [ -f "$work/tui-20000" ] && [ -f "$work/tui-100000" ]; then
		check "CPU for 100000 tokens / CPU for 20000" "$(ratio "$(med 1 "$work/tui-100000")" "$(med 1 "$work/tui-20000")")" "<=" 6
		check "peak RSS for 100000 tokens / render floor's" "$(ratio "$(med 3 "$work/tui-100000")" "$(med 3 "$work/render-100000")")" "<=" 2
	fi
}

# first_screen HOME ARGS TEXT: milliseconds from starting parley until the pane shows TEXT.
first_screen() {
	local start
	start=$(now_ms)
	tmux -L "$sock" new-session -d -s bench -x "$COLS" -y "$ROWS" \
		"PARLEY_HOME=$1 $bin $2 --base-url http://127.0.0.1:9/v1 --model bench"
	wait_screen "$3" 10
	echo $(($(now_ms) - start))
	tmux -L "$sock" kill-session -t bench
}

# first_frame_bench: the first frame of a 10,000-message session, as the operator sees it: from
# starting parley in a new terminal until the session's last message is on screen. An empty
# session's start (until its screen shows) is measured the same way; the difference is what
# the 10,000 messages cost.
first_frame_bench() {
	local home=$work/home-10k sid empty_ms full_ms
	mkdir -p "$home" "$work/home-empty"
	echo
	echo "storing a session of 10000 messages…"
	sid=$("$work/benchkit" seed "$home" 10000)
	: >"$work/ff-empty"
	: >"$work/ff-10k"
	for i in $(seq "$RUNS"); do
		first_screen "$work/home-empty" "" idle >>"$work/ff-empty"
		first_screen "$home" "--session $sid" "That is all for reply 5000." >>"$work/ff-10k"
	done
	empty_ms=$(median <"$work/ff-empty")
	full_ms=$(median <"$work/ff-10k")
	echo "  start-up to first frame in tmux: empty session $empty_ms ms, 10000 messages $full_ms ms (medians)"
	check "first frame: what 10000 messages add to start-up (ms)" "$((full_ms - empty_ms))" "<=" 150
}

# stats FILE: "p50 p99 worst n" of the milliseconds in FILE, one a line (p99 by nearest rank).
stats() {
	sort -g "$1" | awk '{a[NR] = $1} END {
		if (NR == 0) { print "- - - 0"; exit }
		p = int(0.99 * NR); if (p < 0.99 * NR) p++
		printf "%.1f %.1f %.1f %d\n", a[int((NR + 1) / 2)], a[p], a[NR], NR }'
}

# worst FILE: the largest number in FILE.
worst() { stats "$1" | awk '{print $3}'; }

# lat_parley HOME URL: runs parley against URL in a new LAT_COLS×LAT_ROWS pane and waits for
# its first frame.
lat_parley() {
	tmux -L "$sock" new-session -d -s bench -x "$LAT_COLS" -y "$LAT_ROWS" \
		"PARLEY_HOME=$1 $bin --base-url $2 --model bench"
	wait_idle
}

# prompt: types the prompt that enter sends.
prompt() {
	tmux -L "$sock" send-keys -t bench -l "write a long answer"
	sleep 0.1
}

# clear_input: empties the input benchkit keys typed into (a line, or a line after another).
clear_input() {
	tmux -L "$sock" send-keys -t bench C-u BSpace C-u
	sleep 0.05
}

# stream_keys SPEC: types keys while replies stream, until KEYS of them met a streaming reply
# (at most 40 replies: a short reply streams for a few tens of milliseconds); their
# milliseconds go to $work/keys-SPEC.
stream_keys() {
	local f=$work/keys-$1
	: >"$f"
	for _ in $(seq 40); do
		prompt
		tmux -L "$sock" send-keys -t bench Enter
		"$work/benchkit" keys "$sock" bench 60 --stream | awk '$2 == 1 {print $1}' >>"$f"
		wait_idle
		clear_input
		if [ "$(wc -l <"$f")" -ge "$KEYS" ]; then
			break
		fi
	done
}

# stream_esc SPEC: presses esc ESC_RUNS times at each of 0.3, 1.5 and 3 s into a reply; the
# milliseconds until the run is stopped go to $work/esc-SPEC-MS. A delay the reply ended
# before is tried once, and longer ones not at all.
stream_esc() {
	local d r out
	for d in 300 1500 3000; do
		: >"$work/esc-$1-$d"
		for r in $(seq "$ESC_RUNS"); do
			prompt
			out=$("$work/benchkit" esc "$sock" bench "$d")
			wait_idle
			if [ "$out" = ended ]; then
				return
			fi
			echo "$out" >>"$work/esc-$1-$d"
		done
	done
}

# latency_bench: keys and esc in a 120×40 pane, streaming and idle, and a large draft.
latency_bench() {
	local home spec n flags s esc_idle key_idle
	echo
	echo "latency in a ${LAT_COLS}x${LAT_ROWS} pane: ms from sending a key until the screen shows it"
	# A session that outlives parley's, so the tmux server does not exit between panes.
	tmux -L "$sock" new-session -d -s keep -x 20 -y 5 "sleep 100000"
	# Idle: keys on an empty input, esc moving the focus; then the same keys after a 120 KB
	# paste, and 25 lines of 95 characters typed as fast as tmux sends them.
	home=$work/home-lat-idle
	mkdir -p "$home"
	lat_parley "$home" http://127.0.0.1:9/v1
	"$work/benchkit" keys "$sock" bench 25 | awk '{print $1}' >"$work/keys-idle"
	"$work/benchkit" escidle "$sock" bench 12 >"$work/esc-idle"
	clear_input
	awk 'BEGIN {for (i = 1; i <= 1300; i++) printf "pasted line %04d: the stream keeps every word the model sends, and the screen shows them\n", i}' >"$work/paste.txt"
	"$work/benchkit" paste "$sock" bench "$work/paste.txt" >"$work/paste-ms"
	"$work/benchkit" keys "$sock" bench 25 --after | awk '{print $1}' >"$work/keys-paste"
	tmux -L "$sock" kill-session -t bench
	# A home of its own: the pasted draft is kept for the next parley in the same home.
	home=$work/home-lat-lines
	mkdir -p "$home"
	lat_parley "$home" http://127.0.0.1:9/v1
	"$work/benchkit" lines "$sock" bench 25 95 >"$work/lines"
	tmux -L "$sock" kill-session -t bench

	for spec in $LAT_SIZES "$ESC_LONG:esc"; do
		n=${spec%%:*}
		flags=()
		if [ "${spec#*:}" = open ]; then
			flags=(--open-code)
		fi
		echo "  $(label "$spec")…"
		start_server "$n" "${flags[@]}"
		home=$work/home-lat-$spec
		mkdir -p "$home"
		lat_parley "$home" "$url"
		if [ "${spec#*:}" != esc ]; then
			stream_keys "$spec"
		fi
		stream_esc "$spec"
		tmux -L "$sock" kill-session -t bench
		kill "${servers[-1]}" 2>/dev/null || true
	done

	echo
	printf "  %-46s %8s %8s %8s %4s\n" "" p50 p99 worst n
	row() { printf "  %-46s %8s %8s %8s %4s\n" "$1" $(stats "$2"); }
	row "idle: a key" "$work/keys-idle"
	row "idle: esc (held 50 ms by the terminal reader)" "$work/esc-idle"
	for spec in $LAT_SIZES; do
		row "$(label "$spec"): a key while it streams" "$work/keys-$spec"
	done
	for spec in $LAT_SIZES "$ESC_LONG:esc"; do
		for d in 300 1500 3000; do
			s="$(label "$spec"): esc $(awk -v d="$d" 'BEGIN {print d / 1000}') s in"
			if [ -s "$work/esc-$spec-$d" ]; then
				row "$s → stopped" "$work/esc-$spec-$d"
			else
				printf "  %-46s %8s\n" "$s" "(ended before)"
			fi
		done
	done
	row "input: 25 keys, empty" "$work/keys-idle"
	row "input: 25 keys after a 120 KB paste" "$work/keys-paste"
	read -r lines_ms cursor_ok <"$work/lines"
	if [ "$cursor_ok" = 1 ]; then cursor_ok="after the last"; else cursor_ok="NOT after the last"; fi
	echo "  a 120 KB paste shows (collapsed) after $(cat "$work/paste-ms") ms; 25 lines of 95 characters typed"
	echo "  as fast as tmux sends them are on screen after $lines_ms ms, the cursor $cursor_ok"

	echo
	echo "targets (400k tokens at full speed; esc only where the reply still streams):"
	key_idle=$(worst "$work/keys-idle")
	esc_idle=$(worst "$work/esc-idle")
	for spec in $LAT_SIZES; do
		[ "${spec%%:*}" = 400000 ] || continue
		if [ -s "$work/keys-$spec" ]; then
			check "$(label "$spec"): worst key streaming − worst idle key (ms)" "$(minus "$(worst "$work/keys-$spec")" "$key_idle")" "<=" 50
		fi
		for d in 300 1500 3000; do
			if [ -s "$work/esc-$spec-$d" ]; then
				check "$(label "$spec"): worst esc at $d ms − worst idle esc (ms)" "$(minus "$(worst "$work/esc-$spec-$d")" "$esc_idle")" "<=" 50
			fi
		done
	done
	check "input: worst of 25 keys after 120 KB pasted − empty (ms)" "$(minus "$(worst "$work/keys-paste")" "$key_idle")" "<=" 50
}

# label SPEC: how the reply of SPEC (N, N:open or N:esc) is named.
label() {
	if [ "${1#*:}" = open ]; then
		echo "${1%%:*} tokens in code"
	else
		echo "${1%%:*} tokens"
	fi
}

# minus A B: A − B.
minus() { awk -v a="$1" -v b="$2" 'BEGIN {print a - b}'; }

case $LATENCY in
only) latency_bench ;;
0)
	cpu_bench
	first_frame_bench
	;;
*)
	cpu_bench
	first_frame_bench
	latency_bench
	;;
esac
if [ "${SKIP_GO:-}" != 1 ]; then
	echo
	echo "Go benchmarks (per-delta cost, replies through Update/View, first frame, scrolling, each"
	echo "message's Update+View while 400k tokens stream, keys with a 120 KB draft, persistence, reading a stream):"
	go test ./tui -run '^$' -bench 'Delta|Reply|FirstFrame|Scroll|Messages|Keys' -benchtime 1x -count 1 | grep -E '^Benchmark'
	go test ./history -run '^$' -bench Record -benchtime 1x -count 1 | grep -E '^Benchmark' | tee "$work/record"
	go test ./agent -run '^$' -bench AnswerBody -count 1 | grep -E '^Benchmark'
	awk '/tokens=100000\/rate=50\/writes/ {for (i = 1; i < NF; i++) if ($(i + 1) == "cpu-s/reply") s = $i}
		END {if (s != "") printf "  store cost of a 100000-token reply at reading speed (50 tokens/s): %s s of CPU\n", s}' "$work/record"
fi
