"""The command line on small temporary files (subprocess, as an instructor would run it)."""
import subprocess
import sys
from pathlib import Path

import kenlm
import pytest

from lmcore.ngram import NgramModel
from tests.test_ngram_normalisation import small_corpus

ROOT = Path(__file__).resolve().parents[1]


def run(*args):
    return subprocess.run([sys.executable, "-m", "lmcore.ngram", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def test_cli_perplexity_and_arpa(tmp_path):
    train, test = small_corpus(200, seed=1), small_corpus(20, seed=2)
    test[0] = test[0] + ["unseen-word"]
    (tmp_path / "train.txt").write_text("\n".join(" ".join(s) for s in train) + "\n")
    (tmp_path / "test.txt").write_text("\n".join(" ".join(s) for s in test) + "\n")
    out = run(tmp_path / "train.txt", "--order", 3, "--method", "modified-kn",
              "--test", tmp_path / "test.txt", "--arpa", tmp_path / "m.arpa")
    assert out.returncode == 0, out.stderr
    lines = dict(line.split(": ", 1) for line in out.stdout.splitlines())
    expected = NgramModel.fit(train, 3, "modified-kn").perplexity(test)
    assert int(lines["oov"]) == expected.n_oov == 1
    assert int(lines["tokens"]) == expected.n_tokens == sum(len(s) + 1 for s in test)
    assert float(lines["perplexity_including_oovs"]) == pytest.approx(expected.ppl, abs=1e-4)
    assert float(lines["perplexity_excluding_oovs"]) == pytest.approx(expected.ppl_excl_oov, abs=1e-4)
    ken = kenlm.Model(str(tmp_path / "m.arpa"))
    assert ken.order == 3


def test_cli_help_lists_methods_and_rejects_bad_input(tmp_path):
    out = run("--help")
    assert out.returncode == 0
    for name in ("mle", "add-delta", "kn-interp", "kn-backoff", "modified-kn", "kn-notes"):
        assert name in out.stdout
    (tmp_path / "t.txt").write_text("a b\n")
    bad = run(tmp_path / "t.txt", "--method", "mle", "--arpa", tmp_path / "x.arpa")
    assert bad.returncode != 0 and "--arpa" in bad.stderr
    assert run(tmp_path / "t.txt", "--order", 9).returncode != 0


def test_cli_reports_bad_files_without_a_traceback(tmp_path):
    (tmp_path / "bad.txt").write_bytes(b"fine words\nbroken \xff\xfe bytes\n")
    bad = run(tmp_path / "bad.txt", "--order", 2)
    assert bad.returncode == 2 and "UTF-8" in bad.stderr and "Traceback" not in bad.stderr
    missing = run(tmp_path / "missing.txt")
    assert missing.returncode == 2 and "No such file" in missing.stderr and "Traceback" not in missing.stderr


def test_cli_arpa_equals_the_model_and_never_imports_torch(tmp_path):
    """The streamed command line writes the in-memory model's ARPA text; it does not load torch
    (nor pandas): start-up is part of its time."""
    train = small_corpus(150, seed=3)
    (tmp_path / "train.txt").write_text("\n".join(" ".join(s) for s in train) + "\n")
    code = ("import sys; from lmcore.ngram.__main__ import main; main(sys.argv[1:]); "
            "print('heavy:', 'torch' in sys.modules, 'pandas' in sys.modules)")
    probe = subprocess.run([sys.executable, "-c", code, str(tmp_path / "train.txt"), "--order", "3",
                            "--arpa", str(tmp_path / "m.arpa")], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert probe.returncode == 0, probe.stderr
    assert "heavy: False False" in probe.stdout
    from lmcore.ngram.arpa import arpa_lines
    assert (tmp_path / "m.arpa").read_text() == "\n".join(arpa_lines(NgramModel.fit(train, 3))) + "\n"
    out = run(tmp_path / "train.txt", "--order", 2, "--textbook-discounts", "--arpa", tmp_path / "t.arpa")
    assert out.returncode == 0
    textbook = NgramModel.fit(train, 2, lmplz_exact=False)
    assert (tmp_path / "t.arpa").read_text() == "\n".join(arpa_lines(textbook)) + "\n"
