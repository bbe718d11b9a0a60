"""The reader contract (readers/contract.py) is kept by every format the registry lists:
the module names its format and provides ``sniff`` and ``read`` with the contract's
parameters. (That each format's files reach their own reader despite the sniffing order
is what the reader and cross-format tests show, file by file.)"""

from __future__ import annotations

import inspect

import pytest

from tracecheck.readers import READERS
from tracecheck.readers.contract import FormatModule


@pytest.mark.parametrize("info", READERS, ids=[r.name for r in READERS])
def test_each_format_module_provides_the_contract(info):
    module = info.load()
    assert module.FORMAT == info.name
    for name in ("sniff", "read"):
        method = getattr(module, name)
        declared = inspect.signature(getattr(FormatModule, name))
        assert len(inspect.signature(method).parameters) == len(declared.parameters) - 1, (info.name, name)
