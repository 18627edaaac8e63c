import numpy as np
import scipy.sparse as sp
import torch


def encode_onehot(labels):
    classes = sorted(set(labels))
    index = {c: i for i, c in enumerate(classes)}
    return np.array([index[c] for c in labels], dtype=np.int64)


def normalize_features(mx):
    rowsum = np.array(mx.sum(1))
    r_inv = np.power(rowsum, -1.0).flatten()
    r_inv[np.isinf(r_inv)] = 0.0
    return sp.diags(r_inv).dot(mx)


def load_data(path="./data/cora/", dataset="cora"):
    idx_features_labels = np.genfromtxt(f"{path}{dataset}.content", dtype=np.dtype(str))
    features = sp.csr_matrix(idx_features_labels[:, 1:-1], dtype=np.float32)
    labels = encode_onehot(idx_features_labels[:, -1])
    idx = np.array(idx_features_labels[:, 0], dtype=np.int32)
    idx_map = {j: i for i, j in enumerate(idx)}
    edges_unordered = np.genfromtxt(f"{path}{dataset}.cites", dtype=np.int32)
    edges = np.array(list(map(idx_map.get, edges_unordered.flatten())), dtype=np.int32).reshape(edges_unordered.shape)
    adj = sp.coo_matrix((np.ones(edges.shape[0]), (edges[:, 0], edges[:, 1])),
                        shape=(labels.shape[0], labels.shape[0]), dtype=np.float32)
    adj = adj + adj.T.multiply(adj.T > adj) - adj.multiply(adj.T > adj) + sp.eye(adj.shape[0])
    features = normalize_features(features)
    return (torch.FloatTensor(np.array(adj.todense())), torch.FloatTensor(np.array(features.todense())),
            torch.LongTensor(labels), torch.arange(140), torch.arange(200, 500), torch.arange(500, 1500))


def accuracy(output, labels):
    return (output.max(1)[1].type_as(labels) == labels).double().mean()
