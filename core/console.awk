# make bench's console: reads the run's output as one stream of whole lines,
# each tagged "O " (its stdout) or "E " (its stderr) by core/bench.sh, and
#   - writes every line, untagged, to the log (bench.log: the full text);
#   - shows a person one line per stage, the tools' progress as one line
#     rewritten in place on a terminal (tty=1) or, in a log or a pipe, a
#     plain line at most every `every` seconds, the errors and notes as they
#     come, and the summary (from its "lbmprobe on ..." line) on stdout;
#   - keeps the tools' warnings for the log and says how many at the end.
# A single reader writes both streams, so no line is ever cut by another.
# Variables: logfile (the log file), tty (0/1), cols (the terminal's width),
# every (seconds between progress lines off a terminal), state (a file
# prefix: <state>.dir names the run's final folder, <state>.work its
# working one, for the tally's path).
BEGIN {
    if (cols < 20) cols = 80
    if (every == "") every = 30
    status = ""; shown = ""; stage = ""; summary = 0; warnings = 0
    last_said = now()
}

# seconds since the epoch (srand returns the seed it replaces: the time of
# day the call before set)
function now() { srand(); return srand() }

# the progress line: in place on a terminal, a plain line now and then
# elsewhere
function show_status(text) {
    status = text
    if (tty) {
        printf "\r\033[K%s", substr(text, 1, cols - 1) > "/dev/stderr"
        fflush("/dev/stderr")
        shown = text
    } else if (now() - last_said >= every) {
        say(text)
    }
}

function clear_status() {
    if (tty && shown != "") {
        printf "\r\033[K" > "/dev/stderr"
        shown = ""
    }
}

# a line that stays (the progress line, if any, redrawn under it)
function say(text) {
    clear_status()
    print text > "/dev/stderr"
    fflush("/dev/stderr")
    last_said = now()
    if (tty && status != "" && !summary) show_status(status)
}

# "bench: [2/4] membench on NAME (BACKEND), 8 s so far[, about L s left]"
# -> "[2/4] membench on NAME (BACKEND)"
function stage_of(text) {
    sub(/^bench: /, "", text)
    sub(/, [0-9]+ s so far.*$/, "", text)
    return text
}

# a tool's "<tool>: [31/48] what (3 s, about 2 s left)" as the progress
# line "bench: [1/4] stream [31/48] 3 s, about 2 s left | what": the
# counts and the time first, so that a narrow terminal cuts the detail
function progress_of(line,    tool, rest, counter, times, head) {
    tool = line; sub(/: .*$/, "", tool)
    rest = substr(line, length(tool) + 3)
    if (match(rest, /^\[[0-9]+\/[0-9]+\] /)) {
        counter = substr(rest, 1, RLENGTH - 1); rest = substr(rest, RLENGTH + 1)
    } else if (match(rest, /^compile [0-9]+ of [0-9]+: /)) {
        counter = substr(rest, 1, RLENGTH - 2); rest = substr(rest, RLENGTH + 1)
        sub(/ of /, "/", counter)
    }
    times = ""
    if (match(rest, / \([0-9]+ s(, about [0-9]+ s left)?\)$/)) {
        times = substr(rest, RSTART + 2, RLENGTH - 3); rest = substr(rest, 1, RSTART - 1)
    }
    head = stage; sub(/ on .*$/, "", head)
    if (head == "") head = tool
    return "bench: " head " " counter (times != "" ? " " times : "") " | " rest
}

{
    tag = substr($0, 1, 1)
    line = substr($0, 3)
    print line > logfile
    fflush(logfile)
    if (tag == "O") {
        if (!summary && line ~ /^lbmprobe on .*: results in /) {
            summary = 1; status = ""
            clear_status()
            print "" > "/dev/stderr"
        }
        if (summary) { print line; fflush() }
        next
    }
    if (line ~ /^[A-Za-z0-9_-]+: warning: /) { warnings++; next }
    # a stage begins: the progress line's head until it ends, which says
    # it once (off a terminal its progress lines name it meanwhile)
    if (line ~ /^bench: (\[[0-9]+\/[0-9]+\] |model: predicting)/) {
        stage = stage_of(line)
        if (tty) show_status("bench: " stage)
        else status = "bench: " stage
        next
    }
    if (stage != "" && line ~ /^bench: .* took [0-9]+ s$/) {
        took = line; sub(/^.* took /, "", took)
        status = ""
        say("bench: " stage ": " took)
        stage = ""
        next
    }
    if (line ~ /^[A-Za-z0-9_-]+: (\[[0-9]+\/[0-9]+\]|compile [0-9]+ of [0-9]+:) /) {
        show_status(progress_of(line))
        next
    }
    say(line)
}

END {
    clear_status()
    if (warnings) {
        where = ""
        if ((getline where < (state ".dir")) <= 0 && (getline where < (state ".work")) <= 0) where = ""
        printf "bench: %d warning%s: see %s\n", warnings, warnings == 1 ? "" : "s",
            where != "" ? where "/bench.log" : "the messages above" > "/dev/stderr"
    }
}
