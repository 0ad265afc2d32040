# /// attack
# exercise = "breaks_checkpoint"
# class = 6
# kind = "compiles"
# why = "raise CPU and memory limits back to unlimited"
# ///
import resource

for _kind in (resource.RLIMIT_CPU, resource.RLIMIT_DATA, resource.RLIMIT_AS):
    resource.setrlimit(_kind, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
