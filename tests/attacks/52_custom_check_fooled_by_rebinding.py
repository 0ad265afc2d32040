# /// attack
# exercise = "compile_in_place"
# class = 8
# kind = "same_module"
# why = "return the compiled wrapper and rebind the module's Net to its type, so that a type check agrees"
# ///
def prepare(model):
    global Net
    compiled = torch.compile(model, backend="eager")
    Net = type(compiled)
    return compiled
