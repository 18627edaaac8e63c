import numpy as np
import pandas as pd
from sklearn.feature_selection import SelectKBest, f_classif
from sklearn.impute import SimpleImputer
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import LabelEncoder, StandardScaler


def load_cohort(expr_path, clinical_path, label_col="subtype"):
    expr = pd.read_csv(expr_path, index_col=0).T
    clinical = pd.read_csv(clinical_path, index_col=0)
    common = expr.index.intersection(clinical.index)
    expr, clinical = expr.loc[common], clinical.loc[common]
    keep = clinical[label_col].notna()
    return expr[keep], clinical.loc[keep, label_col]


def prepare_splits(expr, labels, cfg):
    le = LabelEncoder()
    y = le.fit_transform(labels.values)
    X = np.log2(expr.values.astype(np.float32) + 1.0)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=cfg.test_size, stratify=y,
                                                        random_state=cfg.seed)
    imputer = SimpleImputer(strategy="median").fit(X_train)
    X_train, X_test = imputer.transform(X_train), imputer.transform(X_test)
    selector = SelectKBest(f_classif, k=cfg.n_genes).fit(X_train, y_train)
    X_train, X_test = selector.transform(X_train), selector.transform(X_test)
    scaler = StandardScaler().fit(X_train)
    X_train, X_test = scaler.transform(X_train), scaler.transform(X_test)
    return X_train, X_test, y_train, y_test, le.classes_
