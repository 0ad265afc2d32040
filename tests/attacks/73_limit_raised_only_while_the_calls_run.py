# /// attack
# exercise = "skip_recompile_limit"
# class = 3
# kind = "compiled_calls"
# base = "starter"
# why = "the team's recompile limit raised inside the server and put back before each request returns: the configuration the grader reads after the calls is the one it started with, but every compile saw the raised limit"
# ///
import torch._dynamo

serve_as_written = run


def run(step, x):
    with torch._dynamo.config.patch(recompile_limit=64):
        return serve_as_written(step, x)
