# /// attack
# exercise = "breaks_checkpoint"
# class = 8
# kind = "compiles"
# why = "catch the fullgraph error inside the function and fall back to the eager result"
# ///
_eager_encode = encode


def encode(x, weight):
    try:
        torch._dynamo.graph_break()
    except Exception:
        pass
    return _eager_encode(x, weight)
