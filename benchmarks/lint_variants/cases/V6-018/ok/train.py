import pandas as pd
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from model import TabularNet
from utils import Learner

CAT_COLS = ["Store", "DayOfWeek", "StateHoliday", "StoreType", "Assortment", "Promo2", "Month", "Year"]
CONT_COLS = ["CompetitionDistance", "Promo", "SchoolHoliday", "Temperature", "Precipitation"]
TARGET = "LogSales"


def to_loader(df, cat_maps, cont_stats, batch_size, shuffle):
    x_cat = torch.tensor(pd.DataFrame({c: df[c].map(cat_maps[c]).fillna(0) for c in CAT_COLS}).values,
                         dtype=torch.long)
    x_cont = torch.tensor(((df[CONT_COLS] - cont_stats["mean"]) / cont_stats["std"]).fillna(0).values,
                          dtype=torch.float32)
    y = torch.tensor(df[TARGET].values, dtype=torch.float32)
    return DataLoader(TensorDataset(x_cat, x_cont, y), batch_size=batch_size, shuffle=shuffle)


if __name__ == "__main__":
    train_df = pd.read_parquet("data/train.parquet")
    valid_df = pd.read_parquet("data/valid.parquet")
    cat_maps = {c: {v: i + 1 for i, v in enumerate(train_df[c].unique())} for c in CAT_COLS}
    cont_stats = {"mean": train_df[CONT_COLS].mean(), "std": train_df[CONT_COLS].std()}
    train_loader = to_loader(train_df, cat_maps, cont_stats, 1024, True)
    valid_loader = to_loader(valid_df, cat_maps, cont_stats, 4096, False)
    model = TabularNet([len(cat_maps[c]) for c in CAT_COLS], len(CONT_COLS))
    device = "cuda" if torch.cuda.is_available() else "cpu"
    learn = Learner(model, nn.MSELoss(), lr=1e-3, device=device)
    learn.fit(train_loader, valid_loader, epochs=15)
    torch.save(model.state_dict(), "tabular_rossmann.pt")
