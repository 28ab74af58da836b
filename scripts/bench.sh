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
# and the ratios that the targets in README.md ("Benchmarks") are stated in. Last, a session of
# 10,000 messages is stored and opened in tmux; the time until its last message is on screen
# is printed. The persistence cost (CPU with and without history writes) and the per-delta
# costs are Go benchmarks, run at the end (SKIP_GO=1 leaves them out).
#
# Needs: go, tmux, GNU time as /usr/bin/time (Debian: apt-get install tmux time).
# Settings (environment): RUNS (default 3), SIZES (default "2000 4000 20000 100000"),
# COLS×ROWS of the terminal (default 100×30). Takes about three minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS=${RUNS:-3}
SIZES=${SIZES:-"2000 4000 20000 100000"}
COLS=${COLS:-100}
ROWS=${ROWS:-30}
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

# start_server N: starts a demo server streaming N tokens at full speed; sets $url.
start_server() {
	local out=$work/server-$1.out
	"$bin" demo-server --addr 127.0.0.1:0 --pace 0 --tokens "$1" >"$out" 2>&1 &
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
check() { # check NAME VALUE OP LIMIT
	local ok
	ok=$(awk -v v="$2" -v l="$4" -v op="$3" 'BEGIN {print (op == "<=" ? v <= l : v >= l) ? "ok" : "MISSED"}')
	printf "  %-62s %8s %s %-6s %s\n" "$1" "$2" "$3" "$4" "$ok"
}
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

# First frame of a 10,000-message session, as the operator sees it: from starting parley in a
# new terminal until the session's last message is on screen. An empty session's start (until
# its screen shows) is measured the same way; the difference is what the 10,000 messages cost.
home=$work/home-10k
mkdir -p "$home" "$work/home-empty"
echo
echo "storing a session of 10000 messages…"
sid=$("$work/benchkit" seed "$home" 10000)
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

if [ "${SKIP_GO:-}" != 1 ]; then
	echo
	echo "Go benchmarks (per-delta cost, replies through Update/View, first frame, persistence):"
	go test ./tui -run '^$' -bench 'Delta|Reply|FirstFrame|Scroll' -benchtime 1x -count 1 | grep -E '^Benchmark'
	go test ./history -run '^$' -bench Record -benchtime 1x -count 1 | grep -E '^Benchmark'
fi
