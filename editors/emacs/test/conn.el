;;; conn.el --- agentls.el on its own JSON-RPC connection, beside Eglot  -*- lexical-binding: t; -*-

;; emacs --batch -l conn.el, from test.sh: the real agentls binary and the
;; fake model (conn-script.json), with agentls.el's own connection
;; (`agentls-connect') instead of Eglot.  It shares run.el's helpers.

;;; Code:

(defvar test-no-main t)
(load (expand-file-name "run.el" (file-name-directory (or load-file-name buffer-file-name))) nil t)
(load (expand-file-name "conn-review.el" (file-name-directory (or load-file-name buffer-file-name))) nil t)
(load (expand-file-name "conn-issue25.el" (file-name-directory (or load-file-name buffer-file-name))) nil t)
(load (expand-file-name "conn-issue36.el" (file-name-directory (or load-file-name buffer-file-name))) nil t)
(load (expand-file-name "conn-issue43.el" (file-name-directory (or load-file-name buffer-file-name))) nil t)
(load (expand-file-name "conn-issue31.el" (file-name-directory (or load-file-name buffer-file-name))) nil t)
(setq test-script "conn-script.json"
      test-name (format "emacs-%s/agentls-conn" emacs-version))

(defun test-requests ()
  (with-temp-buffer
    (insert-file-contents (expand-file-name "requests.jsonl" test-out))
    (mapcar (lambda (l) (json-parse-string l :object-type 'plist))
            (split-string (buffer-string) "\n" t))))

(defun test-request-text (req)
  (mapconcat (lambda (m) (let ((c (plist-get m :content))) (if (stringp c) c "")))
             (append (plist-get (plist-get req :body) :messages) nil)
             "\n---\n"))

(defun test-file (name)
  (with-temp-buffer
    (insert-file-contents (expand-file-name name test-ws))
    (buffer-string)))

(defun test-last-line (buf)
  (with-current-buffer buf
    (save-excursion (goto-char (point-max))
                    (forward-line -1)
                    (buffer-substring-no-properties (point) (line-end-position)))))

(cl-defun test-conn-body ()
  (let ((url (test-start-fakellm))
        (servers-before (copy-tree eglot-server-programs)))
    (setq agentls-program (list (getenv "AGENTLS_BIN") "serve" "--log-file" (expand-file-name "agentls.log" test-out))
          agentls-initialization-options
          `(:llm (:baseURL ,url :model "test-model") :verify (:enabled :json-false)))
    (let* ((hello (find-file-noselect (expand-file-name "hello.txt" test-ws)))
           (conn (progn (setq test-messages nil)
                        (advice-add 'message :before #'test-record-message)
                        (unwind-protect (with-current-buffer hello (agentls-connect))
                          (advice-remove 'message #'test-record-message))))
           t1 t2 t3 abuf bbuf)
      (test-check "agentls-connect starts its own connection" (and conn (jsonrpc-running-p conn)
                                                                  (buffer-local-value 'agentls-managed-mode hello))
                  (format "%S" conn))
      (test-check "agentls-connect says it connected"
                  (cl-some (lambda (m) (string-prefix-p "agentls: connected to " m)) test-messages)
                  (format "%S" test-messages))
      (test-check "agentls-connect says it is connecting, then the server's version, model and approval mode"
                  (and (cl-some (lambda (m) (string-prefix-p "agentls: connecting to " m)) test-messages)
                       (cl-some (lambda (m) (string-match-p "\\`agentls: connected to agentls [^ ]+ (model test-model, approval sandboxed) in " m))
                                test-messages))
                  (format "%S" test-messages))
      (setq test-messages nil)
      (advice-add 'message :before #'test-record-message)
      (unwind-protect (with-current-buffer hello (call-interactively #'agentls-connect))
        (advice-remove 'message #'test-record-message))
      (test-check "agentls-connect says so when already connected"
                  (and (= (length agentls--connections) 1)
                       (cl-some (lambda (m) (string-prefix-p "agentls: already connected to agentls " m)) test-messages))
                  (format "%S" test-messages))
      (test-check "Eglot is left alone (no Eglot server, its programs unchanged)"
                  (and (null (with-current-buffer hello (ignore-errors (eglot-current-server))))
                       (equal servers-before eglot-server-programs)
                       (= 0 (hash-table-count eglot--servers-by-project)))
                  "Eglot was touched")

      ;; The model picker.
      (test-check "agentls-pick-model lists /v1/models and sets the model"
                  (and (equal (agentls-pick-model "gpt-4o-mini") "gpt-4o-mini") (equal agentls-model "gpt-4o-mini"))
                  (format "%S" agentls-model))

      ;; 1. A task editing an open buffer and a file with no buffer.
      (with-current-buffer hello
        (setq t1 (agentls-run "Replace hello with goodbye")))
      (let ((tk (test-wait-end t1 20)))
        (test-check "task ends ok" (equal (plist-get tk :status) "ok") (format "%S" tk)))
      (test-check "the open buffer is edited and left unsaved"
                  (and (equal (test-line1 hello) "goodbye world") (buffer-modified-p hello)
                       (equal (test-file "hello.txt") "hello world\nsecond line\n"))
                  (format "%S" (test-line1 hello)))
      (test-check "a file with no buffer is edited, saved and not left open"
                  (and (equal (test-file "c.txt") "GAMMA\nG2\nG3 three\n")
                       (null (find-buffer-visiting (expand-file-name "c.txt" test-ws))))
                  (test-file "c.txt"))
      (test-check "the task line has tokens, context meter and cost"
                  (test-has " Replace hello with goodbye  · 41000 in / 50 out tokens · context 16% of 128k · $0.0062")
                  (test-stream))
      (test-check "tool lines say the edit's size"
                  (test-has "→ edit_file c.txt · ok (1 line → 3 lines)") (test-stream))

      ;; 2. The conversation: a two-line follow-up typed under the prompt.
      (with-current-buffer (agentls-stream-buffer)
        (goto-char (point-max))
        (insert "See @b.txt for the style.\nThis is the second line of the follow-up.")
        (let ((before (length agentls--tasks)))
          (call-interactively (key-binding (kbd "C-c C-c")))
          (test-check "C-c C-c sends the follow-up" (> (length agentls--tasks) before) "no task")
          (setq t2 (car (car agentls--tasks)))))
      (let ((tk (test-wait-end t2 20)))
        (test-check "the follow-up ends ok" (equal (plist-get tk :status) "ok") (format "%S" tk)))
      (let* ((req (cl-find-if (lambda (r) (string-search "second line of the follow-up" (test-request-text r)))
                              (test-requests)))
             (text (and req (test-request-text req))))
        (test-check "the follow-up continues the session" (and text (string-search "Replace hello with goodbye" text))
                    (format "%S" text))
        (test-check "the follow-up keeps its two lines"
                    (and text (string-search "See @b.txt for the style.\nThis is the second line" text)) "no two lines")
        (test-check "@b.txt attaches the file"
                    (and text (string-search "Files the user mentioned with @" text) (string-search "beta two" text))
                    "no attachment")
        (test-check "the picked model is used"
                    (equal (plist-get (plist-get req :body) :model) "gpt-4o-mini")
                    (format "%S" (plist-get (plist-get req :body) :model))))
      (with-current-buffer (agentls-stream-buffer)
        (test-check "the input is at the bottom, emptied after sending"
                    (and (string-suffix-p "────\n" (buffer-substring-no-properties (point-min) (point-max)))
                         (< (string-search "Follow-up answered." (buffer-string)) (marker-position agentls--input)))
                    (buffer-string)))

      ;; 3. Review: three proposals in two files, Flymake, code actions, diff-mode.
      (setq abuf (find-file-noselect (expand-file-name "a.txt" test-ws))
            bbuf (find-file-noselect (expand-file-name "b.txt" test-ws)))
      (with-current-buffer abuf (setq t3 (agentls-run-review "Change both files")))
      (let ((tk (test-wait-end t3 20)))
        (test-check "agentls-run-review runs in review mode"
                    (and (equal (plist-get tk :status) "ok") (plist-get tk :review)
                         (equal (test-line1 abuf) "alpha one"))
                    (format "%S" tk)))
      (let ((shown (test-wait 5 (lambda ()
                                  (and (= 2 (length (with-current-buffer abuf (flymake-diagnostics))))
                                       (= 1 (length (with-current-buffer bbuf (flymake-diagnostics)))))))))
        (test-check "proposals show through Flymake" shown
                    (format "a.txt %S, b.txt %S" (with-current-buffer abuf (flymake-diagnostics))
                            (with-current-buffer bbuf (flymake-diagnostics)))))
      (with-current-buffer bbuf
        (goto-char (point-min))
        (let ((titles (mapcar (lambda (a) (plist-get a :title)) (agentls-code-action-list))))
          (test-check "code actions on the proposal's line (cursor at column 0)"
                      (cl-some (lambda (tt) (string-search "Accept" tt)) titles) (format "%S" titles))
          (ignore-errors (agentls-code-actions "Accept"))))
      (test-check "agentls-code-actions \"Accept\" applies the change"
                  (test-wait 5 (lambda () (equal (test-line1 bbuf) "BETA two"))) (test-line1 bbuf))
      (let ((rb (agentls-review-diff t3)))
        (with-current-buffer rb
          (test-check "agentls-review-diff opens the proposals in diff-mode"
                      (and (eq major-mode 'diff-mode) agentls-review-mode
                           (string-search "+ALPHA one" (buffer-string)) (string-search "+OMEGA end" (buffer-string)))
                      (buffer-string))
          (goto-char (point-min))
          (search-forward "+OMEGA end")
          (call-interactively (key-binding (kbd "C-c C-a"))))
        (test-check "C-c C-a accepts the hunk at point only"
                    (test-wait 5 (lambda () (and (equal (test-last-line abuf) "OMEGA end")
                                                 (equal (test-line1 abuf) "alpha one"))))
                    (format "first %S last %S" (test-line1 abuf) (test-last-line abuf)))
        (with-current-buffer rb
          (test-check "the review buffer is redrawn with what is left"
                      (and (string-search "+ALPHA one" (buffer-string)) (not (string-search "+OMEGA" (buffer-string))))
                      (buffer-string))))

      ;; 4. History, status wording.
      (let* ((tasks (append (plist-get (agentls-command "agentls.status") :tasks) nil))
             (tk2 (cl-find t2 tasks :key (lambda (x) (plist-get x :taskId)) :test #'equal))
             (tk1 (cl-find t1 tasks :key (lambda (x) (plist-get x :taskId)) :test #'equal)))
        (test-check "history offers undo only for a task that changed files"
                    (and (not (member "undo" (agentls-history-actions tk2))) (member "undo" (agentls-history-actions tk1)))
                    (format "%S / %S" (agentls-history-actions tk2) (agentls-history-actions tk1)))
        (agentls-history t1 "transcript")
        (test-check "agentls-history opens a transcript" (string-suffix-p ".md" (or buffer-file-name ""))
                    (format "%S" buffer-file-name)))
      (agentls--on-event (list :taskId "tx" :kind "end"
                               :result (list :status "ok" :reason "verifyFailed" :summary "go test fails")))
      (test-check "checks failing reads \"done, checks failing\"" (test-has "■ tx done, checks failing: go test fails")
                  (test-stream))
      (test-conn-review t1 t2 abuf)
      (test-conn-issue25)
      (test-conn-issue36)
      (test-conn-issue31)
      (test-conn-issue43)
      (agentls-shutdown conn)
      (test-conn-connect-errors))))

(defun test-conn-connect-errors ()
  "3. agentls-connect's clear errors: no server program, a server that exits."
  (let* ((root (make-temp-file "agentls-noserver" t))
         (agentls-program '("/nonexistent/agentls" "serve"))
         (missing (condition-case e (progn (agentls-connect root) nil) (error (error-message-string e)))))
    (test-check "agentls-connect says the server program is not found"
                (and missing (string-search "/nonexistent/agentls not found" missing) (null agentls--connections))
                (format "%S" missing))
    (let* ((agentls-program '("sh" "-c" "echo 'agentls: serve: bad flag --nope' >&2; exit 3"))
           (died (condition-case e (progn (agentls-connect root) nil) (error (error-message-string e)))))
      (test-check "agentls-connect says the server exited, with its stderr's last line"
                  (and died (string-search "exited (status 3)" died) (string-search "bad flag --nope" died)
                       (null agentls--connections))
                  (format "%S" died)))))

(run-at-time 90 nil (lambda ()
                      (test-check "watchdog" nil "the test did not finish within 90 s")
                      (test-finish)))
(condition-case err
    (test-conn-body)
  (error (test-check "test script" nil (format "%S" err))))
(test-finish)

;;; conn.el ends here
