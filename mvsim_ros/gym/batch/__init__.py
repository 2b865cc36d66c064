"""MvsimBatchEnv: many copies of one world stepped in one compiled call per env step (docs/gym.md).

Modules: env.py (the Gymnasium vector env), kernel.py (the compiled step of all copies), layout.py (its named
data), copy_list.py and uncounted.py (the typed list of the copies it loops over), copies.py (one copy: its
simulation, resets, noise), task_outcomes.py (the tasks' rewards), batched_tasks.py (the built-in
tasks of all copies in one kernel call), refusals.py (worlds that cannot be batched),
registered.py (batches of the registered ids)."""

from mvsim_ros.gym.batch.env import MvsimBatchEnv

__all__ = ["MvsimBatchEnv"]
