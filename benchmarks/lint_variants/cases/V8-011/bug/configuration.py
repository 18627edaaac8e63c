import json
from dataclasses import asdict, dataclass


@dataclass
class TrOCRConfig:
    image_height: int = 64
    image_width: int = 512
    patch_size: int = 16
    num_channels: int = 3
    d_model: int = 384
    encoder_layers: int = 6
    decoder_layers: int = 6
    num_heads: int = 6
    ffn_dim: int = 1536
    dropout: float = 0.1
    attention_dropout: float = 0.1
    vocab_size: int = 100
    max_target_len: int = 128
    pad_token_id: int = 0
    bos_token_id: int = 1
    eos_token_id: int = 2

    @property
    def num_patches(self):
        return (self.image_height // self.patch_size) * (self.image_width // self.patch_size)

    def save_pretrained(self, path):
        with open(path, "w") as f:
            json.dump(asdict(self), f, indent=2)

    @classmethod
    def from_json(cls, path):
        with open(path) as f:
            return cls(**json.load(f))


@dataclass
class TrainingArguments:
    output_dir: str = "outputs/trocr-small-iam"
    train_manifest: str = "data/iam/train.tsv"
    eval_manifest: str = "data/iam/valid.tsv"
    image_root: str = "data/iam/lines"
    num_train_epochs: int = 40
    per_device_batch_size: int = 24
    learning_rate: float = 5e-4
    warmup_steps: int = 1000
    weight_decay: float = 0.05
    label_smoothing: float = 0.1
    logging_steps: int = 50
    seed: int = 42
