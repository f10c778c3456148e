;;; conn-review.el --- The second half of conn.el  -*- lexical-binding: t; -*-

;; Per-change review where the cursor is (column 0 of a proposal's line),
;; proposals that follow the text, repeated diagnostics hidden, undo that
;; asks which task, status wording, and the server's "Trust this file"
;; question asked in the minibuffer with the answer reaching the server.
;; conn.el loads this file and calls `test-conn-review'.

;;; Code:

(defun test-agentls-flymake (buf)
  "The agentls diagnostics Flymake shows in BUF, as (LINE . TEXT)."
  (with-current-buffer buf
    (mapcar (lambda (d) (cons (line-number-at-pos (flymake-diagnostic-beg d)) (flymake-diagnostic-text d)))
            (cl-remove-if-not (lambda (d) (eq (flymake-diagnostic-backend d) 'agentls-flymake-backend))
                              (flymake-diagnostics)))))

(defun test-line (buf n)
  (with-current-buffer buf
    (save-excursion (goto-char (point-min)) (forward-line (1- n))
                    (buffer-substring-no-properties (point) (line-end-position)))))

(defvar test-messages nil)
(defun test-record-message (fmt &rest args)
  (when fmt (push (apply #'format-message fmt args) test-messages)))

(defvar test-other-diags nil "What the stand-in for another language server reports.")
(defun test-other-backend (report-fn &rest _)
  (funcall report-fn test-other-diags))

(defun test-conn-review (t1 t2 abuf)
  (let* ((dpath (expand-file-name "d.txt" test-ws))
         dbuf t6 t7)
    (with-temp-file dpath (insert "one two three\nfour five six\nseven eight nine\n"))
    (setq dbuf (find-file-noselect dpath))
    ;; 1. Accept this change at column 0, outside the diagnostic's range.
    (with-current-buffer dbuf (setq t6 (agentls-run-review "Propose capitals in d.txt")))
    (test-wait-end t6 20)
    (test-wait 5 (lambda () (= 2 (length (test-agentls-flymake dbuf)))))
    (let ((d (car (agentls-diagnostics dbuf))))
      (test-check "two proposals in d.txt, not at column 0"
                  (and (= 2 (length (agentls-diagnostics dbuf)))
                       (> (plist-get (plist-get (plist-get d :range) :start) :character) 0))
                  (format "%S" (agentls-diagnostics dbuf))))
    (with-current-buffer dbuf
      (goto-char (point-min))
      (let ((titles (mapcar (lambda (a) (plist-get a :title)) (agentls-code-action-list))))
        (ignore-errors (agentls-code-actions "Accept this change"))
        (test-check "column 0 of a proposal line offers Accept/Reject this change, and Accept applies it"
                    (and (member "Reject this change" titles)
                         (test-wait 5 (lambda () (equal (test-line dbuf 1) "one two THREE"))))
                    (format "line 1 %S, offered %S" (test-line dbuf 1) titles))))
    ;; 2. The user types above the other proposal: it moves with the text.
    (with-current-buffer dbuf
      (goto-char (point-min))
      (insert "a line the user typed\n")
      (agentls-flush))
    (test-check "the proposal follows the text when the user types above it"
                (test-wait 5 (lambda () (equal (mapcar #'car (test-agentls-flymake dbuf)) '(4))))
                (format "%S" (test-agentls-flymake dbuf)))
    (with-current-buffer dbuf
      (goto-char (point-min))
      (forward-line 3)
      (ignore-errors (agentls-code-actions "Accept this change")))
    (test-check "Accept this change works at the proposal's new line"
                (test-wait 5 (lambda () (and (equal (test-line dbuf 4) "seven eight NINE")
                                             (equal (test-line dbuf 1) "a line the user typed"))))
                (with-current-buffer dbuf (buffer-string)))

    ;; 3. An agentls diagnostic another source repeats on its line is hidden.
    (let ((before (test-agentls-flymake abuf)))
      (with-current-buffer abuf
        (let ((d (car (agentls-diagnostics))))
          (setq test-other-diags
                (list (flymake-make-diagnostic abuf (point-min) (1+ (point-min)) :error
                                               (plist-get d :message))))
          (add-hook 'flymake-diagnostic-functions #'test-other-backend nil t)
          (flymake-start)))
      (test-check "an agentls diagnostic repeating another source's message is hidden"
                  (and before (test-wait 5 (lambda () (null (test-agentls-flymake abuf)))))
                  (format "before %S, now %S" before (test-agentls-flymake abuf)))
      (setq test-other-diags nil)
      (with-current-buffer abuf (flymake-start))
      (test-check "it comes back when the other source clears"
                  (test-wait 5 (lambda () (equal (test-agentls-flymake abuf) before)))
                  (format "%S" (test-agentls-flymake abuf))))

    ;; 4. Undo asks which task: the undoable ones, newest first.
    (let* ((want (mapcar (lambda (tk) (plist-get tk :taskId)) (agentls-undo-candidates)))
           offered prompt)
      (cl-letf (((symbol-function 'completing-read)
                 (lambda (p coll &rest _)
                   (setq prompt p offered (mapcar (lambda (c) (plist-get (cdr c) :taskId)) coll))
                   (car (cl-find t6 coll :key (lambda (c) (plist-get (cdr c) :taskId)) :test #'equal)))))
        (setq test-messages nil)
        (advice-add 'message :before #'test-record-message)
        (unwind-protect (call-interactively #'agentls-undo)
          (advice-remove 'message #'test-record-message)))
      (test-check "agentls-undo picks from the undoable tasks, newest first"
                  (and (string-search "undo which task" prompt) (equal (car offered) t6) (equal offered want)
                       (not (member t2 offered)) (member t1 offered))
                  (format "offered %S, undoable %S" offered want))
      (test-check "the picked task is undone"
                  (and (test-wait 5 (lambda () (let ((s (with-current-buffer dbuf (buffer-string))))
                                                 (and (string-search "one two three" s) (string-search "seven eight nine" s)))))
                       (member (format "agentls: undid %s" t6) test-messages))
                  (format "%S %S" (with-current-buffer dbuf (buffer-string)) test-messages)))
    (setq test-messages nil)
    (advice-add 'message :before #'test-record-message)
    (unwind-protect (agentls-undo t6)
      (advice-remove 'message #'test-record-message))
    (test-check "undoing it again says why, with no raw error"
                (and (string-prefix-p (format "agentls: did not undo %s: " t6) (car test-messages))
                     (not (string-search "jsonrpc" (car test-messages))))
                (format "%S" test-messages))

    ;; 5. "done, checks failing" wherever a result is shown.
    (let ((tk (list :taskId "tx" :status "ok" :reason "verifyFailed" :task "fix it" :summary "go test fails")))
      (test-check "status and history read \"done, checks failing\""
                  (and (string-search "done, checks failing" (agentls--status-line tk))
                       (string-search "done, checks failing" (agentls--history-label tk)))
                  (format "%S / %S" (agentls--status-line tk) (agentls--history-label tk))))

    ;; 6. A workspace .agentls.json that widens power: "Trust this file" is
    ;;    asked in the minibuffer and the answer reaches the server.
    (with-temp-file (expand-file-name ".agentls.json" test-ws)
      (insert "{\"tools\": {\"allow\": [\"echo trusted\"]}}\n"))
    (jsonrpc-notify (agentls-connection-for dpath) :workspace/didChangeConfiguration
                    (list :settings (make-hash-table)))
    (let (question choices)
      (cl-letf (((symbol-function 'completing-read)
                 (lambda (p coll &rest _) (setq question p choices coll) "Trust this file")))
        (with-current-buffer dbuf (setq t7 (agentls-run "say hi")))
        (test-wait-end t7 20))
      (let ((store (expand-file-name "agentls/trust.json" (getenv "XDG_STATE_HOME"))))
        (test-check "\"Trust this file\" is asked with the question text, and the answer reaches the server"
                    (and question (string-search "Trust it?" question) (string-search "tools.allow" question)
                         (member "Not now" choices)
                         (equal (plist-get (test-task t7) :status) "ok")
                         (file-exists-p store)
                         (with-temp-buffer (insert-file-contents store)
                                           (string-search (expand-file-name ".agentls.json" test-ws) (buffer-string))))
                    (format "question %S, choices %S, task %S" question choices (plist-get (test-task t7) :status)))))))

;;; conn-review.el ends here
