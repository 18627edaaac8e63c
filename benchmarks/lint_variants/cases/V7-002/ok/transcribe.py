import argparse
import glob
import json
import logging
import os
import sys

import jiwer
import torch

from asr_module import CTCSpeechModule

log = logging.getLogger("transcribe")


def parse_args(argv=None):
    p = argparse.ArgumentParser(description="Greedy CTC transcription with a trained QuartzNet checkpoint")
    p.add_argument("--ckpt", required=True, help="path to a .ckpt written by train.py")
    p.add_argument("--audio-dir", default=None)
    p.add_argument("--manifest", default=None, help="json lines with audio_filepath/text for scoring")
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--out", default="transcripts.jsonl")
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    return p.parse_args(argv)


def load_model(ckpt_path: str, device: str) -> CTCSpeechModule:
    ckpt = torch.load(ckpt_path, map_location="cpu")
    model = CTCSpeechModule(**ckpt["hyper_parameters"])
    missing, unexpected = model.load_state_dict(ckpt["state_dict"], strict=False)
    if missing or unexpected:
        log.warning("missing=%s unexpected=%s", missing, unexpected)
    log.info("loaded %s (step %s)", ckpt_path, ckpt.get("global_step"))
    return model.to(device)


def main(argv=None):
    args = parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    refs = None
    if args.manifest:
        with open(args.manifest) as f:
            rows = [json.loads(line) for line in f if line.strip()]
        paths = [r["audio_filepath"] for r in rows]
        refs = [r["text"].lower() for r in rows]
    elif args.audio_dir:
        paths = sorted(glob.glob(os.path.join(args.audio_dir, "*.wav")))
    else:
        sys.exit("give --audio-dir or --manifest")

    model = load_model(args.ckpt, args.device)
    hyps = model.transcribe(paths, batch_size=args.batch_size)

    with open(args.out, "w") as f:
        for p, h in zip(paths, hyps):
            f.write(json.dumps({"audio_filepath": p, "pred_text": h}) + "\n")
    if refs is not None:
        log.info("WER: %.2f%%", 100 * jiwer.wer(refs, hyps))


if __name__ == "__main__":
    main()
