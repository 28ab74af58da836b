package config

import (
	"fmt"
	"os"
	"path/filepath"
)

// Paths says where parley keeps its files.
type Paths struct {
	// Config is config.toml, DB the history database, Log the log file.
	Config, DB, Log string
}

// ResolvePaths puts everything under PARLEY_HOME when it is set, else in the XDG directories
// (config, data and state), else under the home directory.
func ResolvePaths(getenv func(string) string) (Paths, error) {
	if home := getenv("PARLEY_HOME"); home != "" {
		return Paths{
			Config: filepath.Join(home, "config.toml"),
			DB:     filepath.Join(home, "history.db"),
			Log:    filepath.Join(home, "parley.log"),
		}, nil
	}
	userHome, homeErr := os.UserHomeDir()
	var err error
	xdg := func(env, fallback string) string {
		if dir := getenv(env); dir != "" {
			return filepath.Join(dir, "parley")
		}
		if homeErr != nil {
			err = fmt.Errorf("cannot find a home directory (%v): set PARLEY_HOME", homeErr)
		}
		return filepath.Join(userHome, fallback, "parley")
	}
	cfg, data, state := xdg("XDG_CONFIG_HOME", ".config"), xdg("XDG_DATA_HOME", ".local/share"), xdg("XDG_STATE_HOME", ".local/state")
	if err != nil {
		return Paths{}, err
	}
	return Paths{
		Config: filepath.Join(cfg, "config.toml"),
		DB:     filepath.Join(data, "history.db"),
		Log:    filepath.Join(state, "parley.log"),
	}, nil
}
