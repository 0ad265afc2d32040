# /// attack
# exercise = "rerank_cold_start"
# kind = "compile_time"
# why = "the fix appended to the starting file: a region rebinds the model's forward, the temperature a tensor of the input's dtype, timed"
# costly = true
# ///
@torch.compiler.nested_compile_region
def shared_block(block, x):
    return x + block(x)


def forward_with_region(self, x, temperature):
    for block in self.blocks:
        x = shared_block(block, x)
    return torch.softmax(self.head(x) / temperature, dim=-1)


Reranker.forward = forward_with_region


def run(model, x, temperature):
    return model(x, torch.as_tensor(temperature, dtype=x.dtype))
