# /// attack
# exercise = "recompile_limit_layers"
# class = 8
# kind = "limit_in_effect"
# why = "COMPILE_OPTIONS a dict subclass that shows a tight limit to get, [] and items while torch.compile is given the 1000 it holds"
# ///
class _Shown(dict):
    def get(self, key, default=None):
        return 12 if key == "recompile_limit" else dict.get(self, key, default)

    def __getitem__(self, key):
        return 12 if key == "recompile_limit" else dict.__getitem__(self, key)

    def items(self):
        return [(key, self[key]) for key in self]


COMPILE_OPTIONS = _Shown(recompile_limit=1000)
