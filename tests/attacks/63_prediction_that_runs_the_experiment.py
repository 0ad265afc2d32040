# /// attack
# exercise = "dynamic_predict"
# class = 8
# kind = "answers"
# why = "a prediction function that compiles the experiment itself, with a counting backend, and returns the count: it knows no rule"
# ///
def predict_graphs(dynamic, sizes):
    torch.compiler.reset()
    graphs = []

    def counting(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    compiled = torch.compile(shift, backend=counting, dynamic=dynamic)
    for n in sizes:
        compiled(torch.randn(n, n))
    return len(graphs)


GRAPHS = {name: predict_graphs(dynamic, sizes) for name, (dynamic, sizes) in EXPERIMENTS.items()}
