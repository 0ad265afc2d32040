# /// attack
# exercise = "block_server"
# class = 8
# kind = "speed"
# costly = true
# base = "wrong:flag_recomputed"
# why = "the log line's flag asked of the block again, eagerly (too slow), plus a global module hook that sleeps only in modules keeping `masks`: the starting file's block, the side the speed check compares with; the fix's own modules never sleep"
# ///
import time

from torch.nn.modules.module import register_module_forward_pre_hook


def _only_the_starting_files_block(module, args):
    if hasattr(module, "masks"):  # the starting file's block keeps its masks there; this one does not
        time.sleep(0.0004)


register_module_forward_pre_hook(_only_the_starting_files_block)
