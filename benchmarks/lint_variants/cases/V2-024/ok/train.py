import torch
import torch.nn as nn
import torchaudio
from torch.utils.data import DataLoader

from model import SpeechRecognitionModel
from utils import ctc_loss, greedy_decode, optimizer_step, text_to_int

hparams = {
    "n_feats": 128, "n_rnn_layers": 3, "rnn_dim": 512, "n_class": 29, "dropout": 0.1,
    "learning_rate": 5e-4, "batch_size": 8, "accum_steps": 4, "epochs": 10,
}
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
train_audio_transforms = nn.Sequential(
    torchaudio.transforms.MelSpectrogram(sample_rate=16000, n_mels=128),
    torchaudio.transforms.FrequencyMasking(freq_mask_param=30),
    torchaudio.transforms.TimeMasking(time_mask_param=100),
)


def collate(batch):
    specs, labels, input_lengths, label_lengths = [], [], [], []
    for waveform, _, utterance, *_ in batch:
        spec = train_audio_transforms(waveform).squeeze(0).transpose(0, 1)   # (T, n_mels)
        specs.append(spec)
        label = torch.tensor(text_to_int(utterance))
        labels.append(label)
        input_lengths.append(spec.shape[0] // 2)
        label_lengths.append(len(label))
    specs = nn.utils.rnn.pad_sequence(specs, batch_first=True).unsqueeze(1).transpose(2, 3)
    labels = nn.utils.rnn.pad_sequence(labels, batch_first=True)
    return specs, labels, torch.tensor(input_lengths), torch.tensor(label_lengths)


train_ds = torchaudio.datasets.LIBRISPEECH("./data", url="train-clean-100", download=True)
train_loader = DataLoader(train_ds, batch_size=hparams["batch_size"], shuffle=True, collate_fn=collate,
                          num_workers=4)

model = SpeechRecognitionModel(hparams["n_feats"], 32, hparams["rnn_dim"], hparams["n_rnn_layers"],
                               hparams["n_class"], hparams["dropout"]).to(device)
optimizer = torch.optim.AdamW(model.parameters(), hparams["learning_rate"])
scheduler = torch.optim.lr_scheduler.OneCycleLR(
    optimizer, max_lr=hparams["learning_rate"], epochs=hparams["epochs"],
    steps_per_epoch=len(train_loader) // hparams["accum_steps"] + 1, anneal_strategy="linear")

for epoch in range(hparams["epochs"]):
    model.train()
    for step, (specs, labels, input_lengths, label_lengths) in enumerate(train_loader):
        specs, labels = specs.to(device), labels.to(device)
        logits = model(specs)
        loss = ctc_loss(logits, labels, input_lengths, label_lengths)
        stepped = optimizer_step(loss, model, optimizer, scheduler, step, hparams["accum_steps"])
        if stepped and step % 400 == 399:
            print(f"epoch {epoch} step {step} loss {loss.item():.4f} sample: {greedy_decode(logits[:1])[0]!r}")
    torch.save(model.state_dict(), f"asr_epoch{epoch}.pt")
