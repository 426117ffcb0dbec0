"""cocotb is optional: without it `python -m skeinhw.cocotb --help` works and a run says what to
install, and `import skeinhw.cocotb` succeeds until one of its names is used."""

import subprocess
import sys

# Runs the code after it with every import of cocotb failing, as in an environment without it.
BLOCK = """
import sys
class _NoCocotb:
    def find_spec(self, name, path=None, target=None):
        if name == "cocotb" or name.startswith(("cocotb.", "cocotb_tools")):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
sys.meta_path.insert(0, _NoCocotb())
"""


def without_cocotb(code, *argv):
    p = subprocess.run([sys.executable, "-c", BLOCK + code, *argv], capture_output=True,
                       text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


RUNNER = "import runpy; runpy.run_module('skeinhw.cocotb', run_name='__main__')"


def test_help_without_cocotb():
    code, out, err = without_cocotb(RUNNER, "--help")
    assert code == 0, out + err
    assert "pip install 'skeinhw[cocotb]'" in out
    for option in ("--pers", "--public-key", "--key-id", "--nonce", "--out-bits", "--tree",
                   "--set", "--scope", "+NAME=VALUE"):
        assert option in out, option


def test_a_run_without_cocotb_says_what_to_install():
    code, out, err = without_cocotb(RUNNER, "--schedule", "ath-1r", "--hex", "616263")
    assert code == 2, out + err
    assert "pip install 'skeinhw[cocotb]'" in err


def test_names_need_cocotb_only_when_used():
    code, out, err = without_cocotb(
        "import skeinhw.cocotb as c\n"
        "try:\n    c.GoldenChecker\nexcept ImportError as e:\n    print('hint:', e)\n")
    assert code == 0, out + err
    assert "pip install 'skeinhw[cocotb]'" in out
