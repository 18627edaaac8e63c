"""Blind split 10's leakage and layout families (task F12a), each across two files with a fixed twin that stays
quiet: a preprocessor handed to a data module and fitted on the training and validation rows pooled, and a
Transformer stack built without batch_first in one file and handed batch-first data in another."""

from .families import line_of, project_findings

DATAMODULE = """
    import numpy as np
    import pandas as pd


    class TabularData:
        def __init__(self, preprocessor, X_train, X_val, y_train, y_val):
            self.preprocessor = preprocessor
            self.X_train, self.X_val, self.y_train, self.y_val = X_train, X_val, y_train, y_val

        def setup(self):
            all_rows = pd.concat([self.X_train, self.X_val], axis=0).reset_index(drop=True)
            all_y = np.concatenate((self.y_train, self.y_val), axis=0)
            self.preprocessor.fit(all_rows, all_y)
            return self.preprocessor.transform(self.X_train), self.preprocessor.transform(self.X_val)
"""
DATAMODULE_FIXED = DATAMODULE.replace("self.preprocessor.fit(all_rows, all_y)",
                                      "self.preprocessor.fit(self.X_train, self.y_train)")
MAIN = """
    from sklearn.preprocessing import StandardScaler
    from data import TabularData

    module = TabularData(StandardScaler(), *load())
"""


def test_pooled_rows_fitted_by_a_handed_preprocessor(tmp_path):
    found = project_findings(tmp_path / "bad", {"data.py": DATAMODULE, "main.py": MAIN}, "MLD051")
    assert found == [("data.py", line_of(DATAMODULE, "self.preprocessor.fit("))]
    assert project_findings(tmp_path / "good", {"data.py": DATAMODULE_FIXED, "main.py": MAIN}, "MLD051") == []


MODEL = """
    import torch.nn as nn


    class TokenEncoder(nn.Module):
        def __init__(self, d_model, n_heads, depth):
            super().__init__()
            layer = nn.TransformerEncoderLayer(d_model=d_model, nhead=n_heads, dropout=0.1)
            self.encoder = nn.TransformerEncoder(layer, num_layers=depth)

        def forward(self, tokens):
            n_batch, n_features, width = tokens.shape
            return self.encoder(tokens).mean(dim=1)
"""
MODEL_FIXED = MODEL.replace("dropout=0.1)", "dropout=0.1, batch_first=True)")
TRAIN = """
    from model import TokenEncoder

    net = TokenEncoder(64, 4, 2)
"""


def test_transformer_stack_without_batch_first(tmp_path):
    found = project_findings(tmp_path / "bad", {"model.py": MODEL, "train.py": TRAIN}, "MLD040")
    assert found == [("model.py", line_of(MODEL, "nn.TransformerEncoderLayer("))]
    assert project_findings(tmp_path / "good", {"model.py": MODEL_FIXED, "train.py": TRAIN}, "MLD040") == []
