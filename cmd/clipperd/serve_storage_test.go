package main

import (
	"bytes"
	"errors"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/server"
)

func TestStorageFlagUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"serve", "--org-storage-quota", "lots"},
		{"serve", "--org-storage-quota", "-1GiB"},
		{"serve", "--upload-expiry", "0s"},
		{"serve", "--janitor-period", "-1m"},
	} {
		var out, errOut bytes.Buffer
		if err := run(t.Context(), args, &out, &errOut); !errors.Is(err, errUsage) {
			t.Errorf("run %q: error %v, want a usage error", args, err)
		}
	}
}

func TestStorageFlags(t *testing.T) {
	cfg := server.Config{UploadExpiry: 1, JanitorPeriod: 1}
	if err := storageFlags(&cfg, "20GiB"); err != nil || cfg.StorageQuota != 20<<30 {
		t.Errorf("--org-storage-quota 20GiB: quota %d, %v", cfg.StorageQuota, err)
	}
	if err := storageFlags(&cfg, "0"); err != nil || cfg.StorageQuota != 0 {
		t.Errorf("--org-storage-quota 0: quota %d, %v; want none", cfg.StorageQuota, err)
	}
}
