;;; conn-issue25.el --- Issue 25's checks for agentls.el  -*- lexical-binding: t; -*-

;; A project command picked and run, an applied task's diff, why the
;; checks failed in the conversation, two proposals in one diff hunk
;; accepted one at a time with the buffer redrawn, and a typeable redraw
;; key.  conn.el loads this file and calls `test-conn-issue25'.

;;; Code:

(defun test-conn-issue25 ()
  (let* ((epath (expand-file-name "e.txt" test-ws))
         (fpath (expand-file-name "f.txt" test-ws))
         ebuf fbuf t8 t9)
    (with-temp-file epath (insert "echo five\n"))
    (with-temp-file fpath (insert "one\ntwo\nthree\nfour\nfive\n"))
    (make-directory (expand-file-name ".agentls/commands" test-ws) t)
    (with-temp-file (expand-file-name ".agentls/commands/shout.md" test-ws)
      (insert "---\ndescription: Shout a word\nargument-hint: <word>\n---\nShout the word $ARGUMENTS in e.txt.\n"))
    (setq ebuf (find-file-noselect epath))

    ;; 1. A project command from the picker, with its argument asked for.
    (let (annotation asked)
      (cl-letf (((symbol-function 'completing-read)
                 (lambda (_p coll &rest _)
                   (setq annotation (funcall (plist-get completion-extra-properties :annotation-function) "shout"))
                   (car (assoc "shout" coll))))
                ((symbol-function 'read-string) (lambda (p &rest _) (setq asked p) "echo")))
        (with-current-buffer ebuf (setq t8 (call-interactively #'agentls-run-command))))
      (test-wait-end t8 20)
      (test-check "agentls-run-command picks a project command and asks its argument"
                  (and (equal annotation " <word>  — Shout a word") (equal asked "/shout <word>: "))
                  (format "annotation %S, asked %S" annotation asked))
      (test-check "the project command runs with its text"
                  (and (equal (plist-get (test-task t8) :status) "ok")
                       (test-wait 5 (lambda () (equal (test-line1 ebuf) "ECHO five"))))
                  (format "%S %S" (plist-get (test-task t8) :status) (test-line1 ebuf))))

    ;; 2. What the applied task changed.
    (let ((db (ignore-errors (agentls-task-diff t8))))
      (test-check "agentls-task-diff shows what an applied task changed"
                  (and db (with-current-buffer db
                            (and (eq major-mode 'diff-mode)
                                 (string-search "+++ b/e.txt" (buffer-string))
                                 (string-search "-echo five" (buffer-string))
                                 (string-search "+ECHO five" (buffer-string)))))
                  (if db (with-current-buffer db (buffer-string)) "no buffer")))

    ;; 2b. The echo area gets one line of a long server message.
    (setq test-messages nil)
    (advice-add 'message :before #'test-record-message)
    (unwind-protect
        (agentls--handle-notification nil 'window/showMessage
                                      (list :type 3 :message "agentls t9 ok: Done.\n\nA second paragraph\nand more."))
      (advice-remove 'message #'test-record-message))
    (test-check "a server message takes one line of the echo area"
                (equal (car test-messages) "agentls: agentls t9 ok: Done. … (see *agentls*)")
                (format "%S" test-messages))

    ;; 2c. Once undone, the task no longer reads "ok" in the history, and
    ;;     its diff buffer says nothing it applied is left.
    ;;     The undo is picked in the task list (agentls-history), which
    ;;     shows each task's state and offers rewind and undo.
    (let ((db (get-buffer (format "*agentls diff %s*" t8)))
          labels actions)
      (cl-letf (((symbol-function 'completing-read)
                 (lambda (prompt coll &rest _)
                   (let ((items (all-completions "" coll)))
                     (if (string-prefix-p "agentls task" prompt)
                         (progn (setq labels items)
                                (cl-find-if (lambda (l) (string-prefix-p (concat t8 "  ") l)) items))
                       (setq actions items)
                       "undo")))))
        (agentls-history))
      (let ((mine (cl-find-if (lambda (l) (string-prefix-p (concat t8 "  ") l)) labels)))
        (test-check "i36/8 the task list shows each task's state and offers rewind and undo"
                    (and mine (string-match-p (concat "\\`" t8 "  done ") mine)
                         (member "rewind" actions) (member "undo" actions))
                    (format "%S %S" labels actions)))
      (test-check "i36 the applied diff buffer redraws after agentls-undo"
                  (and db (with-current-buffer db
                            (and (string-prefix-p (format "# agentls task %s: nothing it applied is left" t8) (buffer-string))
                                 (not (string-search "+ECHO five" (buffer-string))))))
                  (if db (with-current-buffer db (buffer-string)) "no buffer")))
    (let* ((tasks (append (plist-get (agentls-command "agentls.status") :tasks) nil))
           (tk (cl-find t8 tasks :key (lambda (x) (plist-get x :taskId)) :test #'equal)))
      (test-check "history reads \"undone\" for an undone task"
                  (and tk (string-search "undone" (agentls--history-label tk))
                       (not (string-search " ok" (agentls--history-label tk))))
                  (format "%S" (and tk (agentls--history-label tk)))))

    ;; 3. Why the checks failed, in the conversation.
    (agentls--on-event (list :taskId "tv" :kind "verify"
                             :verify (list :passed :json-false :summary "go vet: 1 problem located"
                                           :located ["e.go:3: undefined: ECHO"] :feedback "e.go:3:2: undefined: ECHO")))
    (agentls--on-event (list :taskId "tw" :kind "verify"
                             :verify (list :passed :json-false :summary "make check failed (exit 2)"
                                           :feedback "lint: trailing space in README\nexit status 2")))
    (agentls--on-event (list :taskId "tz" :kind "end" :result (list :status "ok" :summary "## Done\nRenamed the helper.")))
    (test-check "the summary line drops a Markdown heading's #" (test-has "■ tz ok: Done") (test-stream))
    (test-check "the conversation shows why the checks failed"
                (and (test-has "    e.go:3: undefined: ECHO") (test-has "    lint: trailing space in README"))
                (test-stream))

    ;; 4. Two proposals a few lines apart make one diff hunk: C-c C-a
    ;;    accepts the one at point, the buffer is redrawn, and the other
    ;;    is accepted next without an error.
    (setq fbuf (find-file-noselect fpath))
    (setq test-messages nil)
    (advice-add 'message :before #'test-record-message)
    (unwind-protect
        (progn (with-current-buffer fbuf (setq t9 (agentls-run-review "Propose close changes in f.txt")))
               (test-wait-end t9 20)
               (test-wait 5 (lambda () (cl-some (lambda (m) (string-search "wait for your review" m)) test-messages))))
      (advice-remove 'message #'test-record-message))
    (test-check "the review message names Emacs's commands, not the server's"
                (cl-some (lambda (m) (and (string-search "wait for your review (M-x agentls-review-diff" m)
                                          (not (string-search "agentls.accept" m))))
                         test-messages)
                (format "%S" test-messages))
    (test-wait 5 (lambda () (= 2 (length (agentls-diagnostics fbuf)))))
    (let ((rb (agentls-review-diff t9)) err)
      (with-current-buffer rb
        (test-check "two close proposals share one hunk"
                    (= 1 (how-many "^@@" (point-min) (point-max))) (buffer-string))
        (goto-char (point-min))
        (search-forward "+FOUR")
        (condition-case e (call-interactively (key-binding (kbd "C-c C-a"))) (error (setq err e))))
      (test-check "C-c C-a accepts the proposal at point, not the hunk"
                  (and (null err) (test-wait 5 (lambda () (with-current-buffer fbuf
                                                            (and (string-search "FOUR" (buffer-string))
                                                                 (string-search "one\n" (buffer-string)))))))
                  (format "%S %S" err (with-current-buffer fbuf (buffer-string))))
      (with-current-buffer rb
        (test-check "the review buffer is redrawn after it"
                    (and (string-search "+ONE" (buffer-string)) (not (string-search "+FOUR" (buffer-string))))
                    (buffer-string))
        (goto-char (point-min))
        (search-forward "+ONE")
        (condition-case e (call-interactively (key-binding (kbd "C-c C-a"))) (error (setq err e))))
      (test-check "the second proposal is accepted too, without an error"
                  (and (null err) (test-wait 5 (lambda () (with-current-buffer fbuf
                                                            (string-prefix-p "ONE\ntwo" (buffer-string))))))
                  (format "%S %S" err (with-current-buffer fbuf (buffer-string))))
      (with-current-buffer rb
        (let ((inhibit-read-only t)) (goto-char (point-max)) (insert "stale text\n"))
        (call-interactively (key-binding (kbd "g")))
        (test-check "g redraws the review buffer"
                    (and (not (string-search "stale text" (buffer-string)))
                         (string-search "nothing left to review" (buffer-string)))
                    (buffer-string))))

    ;; 5. agentls-verify: the checks alone, a task that ends.
    (let ((tv (agentls-verify)))
      (test-wait-end tv 20)
      (test-check "agentls-verify runs the project's checks as a task (agentls.verify)"
                  (and (stringp tv) (plist-get (test-task tv) :status)
                       (not (member (plist-get (test-task tv) :status) '("queued" "running"))))
                  (format "%S %S" tv (and tv (test-task tv)))))

    ;; 5b. A task the editor did not type (a code action's "Fix with
    ;;     agentls") gets a header from its first event; a typed one no second.
    (agentls--on-event (list :taskId "tfix" :kind "state" :from "idle" :to "planning"
                             :task "Fix the failure at e.go:3"))
    (test-check "a code action's task gets a header in the conversation; a typed one no second"
                (and (test-has "▶ tfix Fix the failure at e.go:3")
                     (not (string-search "verify the workspace" (test-stream))))
                (test-stream))

    (agentls--on-event (list :taskId "tfix" :kind "notice"
                             :text "@../outside.txt was not read: outside the workspace"))
    (test-check "a mention not read is named in the conversation (notice)"
                (test-has "· notice: @../outside.txt was not read: outside the workspace")
                (test-stream))

    ;; 5c. The task prompt takes several lines: C-j inserts a newline.
    (let (map)
      (cl-letf (((symbol-function 'read-from-minibuffer)
                 (lambda (_p _i keymap &rest _) (setq map keymap) "line one\nline two")))
        (let ((got (agentls-read-task "agentls task: ")))
          (test-check "the task prompt takes several lines (C-j inserts a newline)"
                      (and (equal got "line one\nline two")
                           (eq (lookup-key map (kbd "C-j")) #'newline)
                           (eq (lookup-key map (kbd "RET")) #'exit-minibuffer))
                      (format "%S %S" got (and map (lookup-key map (kbd "C-j"))))))))

    ;; 6. *agentls* shows in a side window a third of the frame high.
    (delete-other-windows)
    (agentls-show-stream)
    (let ((w (get-buffer-window "*agentls*")))
      (test-check "*agentls* shows in a bottom side window"
                  (and w (eq (window-parameter w 'window-side) 'bottom))
                  (format "%S side %S" w (and w (window-parameter w 'window-side)))))

    ;; 7. The follow-up separator never glues onto streaming text.
    (agentls--insert "still streami" t)
    (let ((sep (car (split-string agentls--prompt "\n"))))
      (with-current-buffer (agentls-stream-buffer)
        (test-check "the follow-up separator starts its own line below streaming text"
                    (string-search (concat "still streami\n" sep) (buffer-string))
                    (buffer-string)))
      (agentls--insert "ng." t)
      (agentls--line "next line")
      (with-current-buffer (agentls-stream-buffer)
        (test-check "streaming text continues on its line, and the next line follows it without a blank"
                    (string-search (concat "still streaming.\nnext line\n" sep) (buffer-string))
                    (buffer-string))))))

;;; conn-issue25.el ends here
