// Package text has small text helpers.
package text
