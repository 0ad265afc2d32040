# /// attack
# exercise = "warm_restart"
# class = 8
# kind = "warm_start"
# why = "hand the cache artifacts over through a file torch.save writes in the folder above each start-up's own, not through the bytes save returns"
# costly = true
# ///
def save_compile_state() -> bytes:
    torch.save({"artifacts": torch.compiler.save_cache_artifacts()[0]}, "../compile-state.pt")
    return b""


def load_compile_state(blob: bytes) -> None:
    torch.compiler.load_cache_artifacts(torch.load("../compile-state.pt")["artifacts"])
