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
# # Chapter 5: Reducing compile time

# %%
import sys

from autograder.notebook import check, hint

# %% [markdown]
# ## 5.1 Avoid unnecessary recompiles
#
# Every recompile is a full compile. A Python float is a constant in the graph: pass knobs that change as tensors.

# %% [markdown]
# Exercise: [recompile_float_knob](../exercises/05_compile_time/recompile_float_knob.py)

# %%
!{sys.executable} ../exercises/05_compile_time/recompile_float_knob.py

# %%
check("recompile_float_knob")

# %% [markdown]
# ## 5.2 Use dynamic shapes to avoid recompiles on shape changes
#
# `dynamic=False` specialises every size; `dynamic=True` (or the default, automatic dynamic) keeps one graph for many sizes.

# %% [markdown]
# Exercise: [dynamic_sizes](../exercises/05_compile_time/dynamic_sizes.py)

# %%
!{sys.executable} ../exercises/05_compile_time/dynamic_sizes.py

# %%
check("dynamic_sizes")

# %% [markdown]
# ## 5.3 Regional compilation
#
# Compile the repeated block, not the whole model: one compiled block serves every layer.

# %% [markdown]
# Exercise: [regional_blocks](../exercises/05_compile_time/regional_blocks.py)

# %%
!{sys.executable} ../exercises/05_compile_time/regional_blocks.py

# %%
check("regional_blocks")

# %% [markdown]
# ## 5.4 Hierarchical compilation with nested_compile_region
#
# `torch.compiler.nested_compile_region` keeps one graph but traces the repeated function once (`invoke_subgraph`).

# %% [markdown]
# Exercise: [nested_region](../exercises/05_compile_time/nested_region.py)

# %%
!{sys.executable} ../exercises/05_compile_time/nested_region.py

# %%
check("nested_region")

# %% [markdown]
# ## 5.5 Measuring compile time
#
# `torch._dynamo.utils.compile_times()`, TORCH_TRACE compilation_metrics (`entire_frame_compile_time_s`), and wall time of a cold first call.

# %% [markdown]
# Exercise: [measure_compile](../exercises/05_compile_time/measure_compile.py)

# %%
!{sys.executable} ../exercises/05_compile_time/measure_compile.py

# %%
check("measure_compile")

