import numpy as np
import pandas as pd
import torch
from rdkit import Chem
from rdkit.Chem import AllChem
from torch.utils.data import Dataset


def morgan_fp(smiles, radius=2, n_bits=2048):
    mol = Chem.MolFromSmiles(smiles)
    if mol is None:
        return None
    fp = AllChem.GetMorganFingerprintAsBitVect(mol, radius, nBits=n_bits)
    arr = np.zeros((n_bits,), dtype=np.float32)
    for i in fp.GetOnBits():
        arr[i] = 1.0
    return arr


class FingerprintDataset(Dataset):
    def __init__(self, csv_path, smiles_col="smiles", target_col="logS", n_bits=2048):
        df = pd.read_csv(csv_path)
        feats, ys = [], []
        for smi, y in zip(df[smiles_col], df[target_col]):
            fp = morgan_fp(smi, n_bits=n_bits)
            if fp is not None:
                feats.append(fp)
                ys.append(y)
        self.x = torch.from_numpy(np.stack(feats))
        self.y = torch.tensor(ys, dtype=torch.float32)

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], self.y[i]
