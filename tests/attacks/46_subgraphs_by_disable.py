# /// attack
# exercise = "nested_region"
# class = 8
# kind = "subgraphs"
# why = "mark the layer disabled instead of a nested compile region"
# ///
layer = torch.compiler.disable(layer)
