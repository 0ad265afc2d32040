# ---
# jupyter:
#   jupytext:
#     cell_metadata_filter: tags,-all
#     formats: ipynb,py:percent
#     notebook_metadata_filter: kernelspec,jupytext,-jupytext.text_representation.jupytext_version
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Chapter 6: Reducing guard overhead

# %%
import sys

from autograder.notebook import check, hint

# %% [markdown]
# ## 6.1 Less bytecode before the graph runs: install_free_tensors
#
# Parameters become graph attributes, not inputs. Unsafe: a rebound parameter is not seen (stale results) on 2.13.

# %% [markdown]
# Exercise: [free_tensors](../exercises/06_guard_overhead/free_tensors.py)

# %%
!{sys.executable} ../exercises/06_guard_overhead/free_tensors.py

# %%
check("free_tensors")

# %% [markdown]
# ## 6.2 Skipping guards on nn.Module with guard_filter_fn
#
# `torch.compiler.skip_guard_on_all_nn_modules_unsafe` and `skip_guard_on_inbuilt_nn_modules_unsafe` drop guard categories; only safe if what they protect never changes.

# %% [markdown]
# Exercise: [filter_nn_guards](../exercises/06_guard_overhead/filter_nn_guards.py)

# %%
!{sys.executable} ../exercises/06_guard_overhead/filter_nn_guards.py

# %%
check("filter_nn_guards")

# %% [markdown]
# Exercise: [filter_keeps_attr](../exercises/06_guard_overhead/filter_keeps_attr.py)

# %%
!{sys.executable} ../exercises/06_guard_overhead/filter_keeps_attr.py

# %%
check("filter_keeps_attr")

# %% [markdown]
# ## 6.3 Try use_recursive_dict_tags_for_guards first
#
# Keeps every guard; its default is False on torch 2.13.

# %% [markdown]
# Exercise: [dict_tags_first](../exercises/06_guard_overhead/dict_tags_first.py)

# %%
!{sys.executable} ../exercises/06_guard_overhead/dict_tags_first.py

# %%
check("dict_tags_first")

# %% [markdown]
# ## 6.4 Skipping guard evaluation after warm-up: skip_guard_eval_unsafe
#
# `set_stance(skip_guard_eval_unsafe=True)` only after every needed entry is compiled.

# %% [markdown]
# Exercise: [skip_eval_serving](../exercises/06_guard_overhead/skip_eval_serving.py)

# %%
!{sys.executable} ../exercises/06_guard_overhead/skip_eval_serving.py

# %%
check("skip_eval_serving")

# %% [markdown]
# ## 6.5 Putting it all together
#
# Combine install_free_tensors, a guard filter that keeps the guards your schedule needs, and the stance after warm-up; measure guard time with the profiler's Cache Lookup events.

# %% [markdown]
# ## 6.6 Further reading
#
# The torch.compiler docs on guard filters and stances; the course facts sheet section 6.

