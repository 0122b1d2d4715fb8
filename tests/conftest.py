from tests.helpers import write_specs

__all__ = ["write_specs"]
