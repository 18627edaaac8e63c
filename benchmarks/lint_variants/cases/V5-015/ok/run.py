import pandas as pd
import torch
from sklearn.model_selection import KFold
from torch.utils.data import DataLoader, Dataset
from transformers import AutoTokenizer, get_cosine_schedule_with_warmup

from model import CFG, CommonLitModel
from train import train_fn


class LitDataset(Dataset):
    def __init__(self, df, tokenizer):
        self.enc = tokenizer(df["excerpt"].tolist(), max_length=CFG.max_len, padding="max_length",
                             truncation=True, return_tensors="pt")
        self.target = torch.tensor(df["target"].values, dtype=torch.float32)

    def __len__(self):
        return len(self.target)

    def __getitem__(self, idx):
        return {"input_ids": self.enc["input_ids"][idx], "attention_mask": self.enc["attention_mask"][idx],
                "target": self.target[idx]}


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
tokenizer = AutoTokenizer.from_pretrained(CFG.model_name)
train_df = pd.read_csv("../input/commonlitreadabilityprize/train.csv")
kfold = KFold(n_splits=CFG.n_fold, shuffle=True, random_state=CFG.seed)
for fold, (trn_idx, val_idx) in enumerate(kfold.split(train_df)):
    train_loader = DataLoader(LitDataset(train_df.iloc[trn_idx], tokenizer), batch_size=CFG.batch_size,
                              shuffle=True, drop_last=True)
    valid_loader = DataLoader(LitDataset(train_df.iloc[val_idx], tokenizer), batch_size=CFG.batch_size * 2)
    model = CommonLitModel().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=CFG.lr, weight_decay=0.01)
    scheduler = get_cosine_schedule_with_warmup(optimizer, 50, len(train_loader) * CFG.epochs)
    best_rmse = float("inf")
    for epoch in range(CFG.epochs):
        best_rmse = train_fn(model, train_loader, valid_loader, optimizer, scheduler, device, fold, best_rmse)
    print(f"fold {fold}: best rmse {best_rmse:.4f}")
