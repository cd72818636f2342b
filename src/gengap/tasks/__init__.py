"""Built-in task generators: seeded datasets with exact labels, known structure and natural splits.

``gengap tasks list`` shows every task with its parameters; :func:`generate` makes a dataset and
:func:`natural_splits` the splitters that test what the task is built for.

>>> from gengap.tasks import generate, natural_splits
>>> ds = generate("addition", seed=0, n=1000)
>>> sorted(natural_splits("addition"))
['iid', 'length']
"""

from gengap.tasks import algorithmic, chomsky, facts, grids, modular, word_problems, xor  # noqa: F401  (registers the tasks)
from gengap.tasks._registry import Param, Task, generate, get_task, natural_splits, register_task, task, tasks

__all__ = ["Param", "Task", "generate", "get_task", "natural_splits", "register_task", "task", "tasks"]
