# /// attack
# exercise = "block_server"
# class = 8
# kind = "speed"
# costly = true
# base = "wrong:flag_recomputed"
# why = "the log line's flag asked of the block again, eagerly (too slow), and after the first twelve requests every answer replayed from the first pass by its place in the schedule, whatever the inputs: fresh inputs alone do not stop it, only answers compared on them"
# ///
SEEN = []  # every answer and line, in the order the requests came
serve_as_written = serve


def serve(model, x):
    if len(SEEN) >= 12:  # the grader's schedule has twelve requests: from the second pass on, replay the first
        out, line = SEEN[len(SEEN) % 12]
        SEEN.append((out, line))
        print(line)
        return out
    out = serve_as_written(model, x)
    SEEN.append((out, f"request {model.requests}: {x.shape[1]} tokens"))
    return out
