;;; package-vc.el --- Emacs 30's package-vc installs agentls from its URL  -*- lexical-binding: t; -*-

;; Run by test.sh as `emacs --batch -l package-vc.el' with HOME a fresh
;; directory: package-vc-install from a local repository standing for the
;; project's URL (AGENTLS_PACKAGE_SRC) with :lisp-dir "editors/emacs",
;; then the package loads, and its first connection, with agentls not on
;; exec-path, offers to download the server from a release directory
;; (AGENTLS_RELEASE_URL, file://), checks it and starts it.  Writes one
;; line per check to AGENTLS_TEST_OUT/results.txt and a summary line.

(require 'package)
(require 'cl-lib)

(defvar test-out (getenv "AGENTLS_TEST_OUT"))
(defvar test-lines nil)
(defvar test-failed 0)
(defun check (name ok &optional detail)
  (unless ok (setq test-failed (1+ test-failed)))
  (push (format "%s %s%s" (if ok "ok  " "FAIL") name (if detail (format " — %s" detail) "")) test-lines))
(defun finish ()
  (push (format "%d checks, %d failed" (length test-lines) test-failed) test-lines)
  (with-temp-file (expand-file-name "results.txt" test-out)
    (insert (mapconcat #'identity (reverse test-lines) "\n") "\n"))
  (kill-emacs (if (= test-failed 0) 0 1)))

(condition-case err
    (progn
      (setq package-user-dir (expand-file-name "elpa" (getenv "HOME"))
            package-archives nil
            exec-path '("/usr/local/bin" "/usr/bin" "/bin"))
      (check "agentls is not on exec-path" (not (executable-find "agentls")))
      (package-initialize)
      ;; What README.md gives, with the URL replaced by the local repository.
      (package-vc-install `(agentls :url ,(getenv "AGENTLS_PACKAGE_SRC") :lisp-dir "editors/emacs"))
      (check "package-vc installed agentls" (package-installed-p 'agentls))
      (let ((lib (locate-library "agentls")))
        (check "agentls.el is found in the installed package" (and lib (string-prefix-p package-user-dir lib)) lib))
      (let ((al (locate-library "agentls-autoloads")))
        (check "its autoloads were generated (agentls-connect among them)"
               (and al (with-temp-buffer (insert-file-contents al) (search-forward "agentls-connect" nil t)))
               al))
      (require 'agentls)
      (check "agentls loads" (and (featurep 'agentls) (featurep 'agentls-fetch) (fboundp 'agentls-run)))
      (let ((asked nil)
            (ws (getenv "AGENTLS_TEST_WS"))
            (agentls-fetch-url (getenv "AGENTLS_RELEASE_URL")))
        (cl-letf (((symbol-function 'y-or-n-p) (lambda (prompt) (push prompt asked) t)))
          (with-current-buffer (find-file-noselect (expand-file-name "hello.txt" ws))
            (let* ((conn (agentls-connect))
                   (fetched (expand-file-name "agentls" agentls-fetch-directory)))
              (check "the first connection asked before downloading, once" (= (length asked) 1) (car asked))
              (check "the question names the archive and where it goes"
                     (and (string-match-p "agentls_" (car asked))
                          (string-match-p (regexp-quote (abbreviate-file-name agentls-fetch-directory))
                                          (abbreviate-file-name (car asked)))))
              (check "the server was fetched into agentls-fetch-directory" (file-executable-p fetched) fetched)
              (check "the connection runs the fetched server"
                     (and conn (jsonrpc-running-p conn)
                          (equal (car (process-command (jsonrpc--process conn))) fetched))
                     (and conn (process-command (jsonrpc--process conn))))
              (jsonrpc-shutdown conn))))
        (let ((err (condition-case e
                       (progn (agentls-fetch-download (getenv "AGENTLS_BAD_RELEASE_URL")
                                                      (expand-file-name "bad" (getenv "HOME")))
                              nil)
                     (error (error-message-string e)))))
          (check "a download whose SHA-256 does not match is refused" (and err (string-match-p "SHA-256" err)) err)
          (check "and nothing is installed"
                 (not (file-exists-p (expand-file-name "bad/agentls" (getenv "HOME"))))))))
  (error (check "no error" nil (error-message-string err))))
(finish)
