# /// attack
# exercise = "block_server"
# class = 8
# kind = "speed"
# costly = true
# base = "wrong:flag_recomputed"
# why = "the log line's flag asked of the block again, eagerly (too slow), and every answer remembered by the id of the request's tensor: a timing that repeats the same call objects times a dictionary lookup (251x faster than the eager starter before the timed passes got fresh inputs)"
# ///
ANSWERED = {}  # id of a request's tensor -> (what was returned, the line printed)
serve_as_written = serve


def serve(model, x):
    kept = ANSWERED.get(id(x))
    if kept is not None:  # the same request object again: answered from memory
        print(kept[1])
        return kept[0]
    out = serve_as_written(model, x)
    ANSWERED[id(x)] = (out, f"request {model.requests}: {x.shape[1]} tokens")
    return out
