;;; conn-issue36.el --- Issue 36's checks for agentls.el  -*- lexical-binding: t; -*-

;; What autonomy did (how a command ran, its output behind a button, the
;; mode line's approval mode and budget), the plan updated in place, two
;; tasks that never mix unnamed, a task in a worktree from the prefix
;; argument, a discard that asks, short ids and the task list's states.
;; conn.el loads this file and calls `test-conn-issue36'.

;;; Code:

(defun test-i36-run (task &rest args)
  "Start TASK with `agentls-run' (ARGS after it) and wait for its end."
  (let ((id (apply #'agentls-run task args)))
    (test-wait-end id 20)
    id))

(defun test-i36-lines (needle)
  "The lines of *agentls* that contain NEEDLE."
  (cl-remove-if-not (lambda (l) (string-search needle l)) (split-string (test-stream) "\n")))

(defun test-conn-issue36 ()
  (let ((hello (find-file-noselect (expand-file-name "hello.txt" test-ws))))
    ;; 1. Autonomy shown.
    (with-current-buffer hello (test-i36-run "I36 run the listing"))
    (let* ((line (car (test-i36-lines "→ run_command printf")))
           (buf (agentls-stream-buffer))
           (at (with-current-buffer buf (save-excursion (goto-char (point-min)) (search-forward "│ two" nil t))))
           (sym (and at (get-text-property (1- at) 'invisible buf))))
      (test-check "i36/1 a command says how it ran and its exit code"
                  (and line (string-search " · exit 0 · " line)
                       (or (string-search "in the sandbox, unasked" line) (string-search "approved by you" line)
                           (string-search "allowed by your rules" line)))
                  (test-stream))
      (test-check "i36/1 its output is under a button, hidden until pressed"
                  (and sym (test-has "▸ output (4 lines)")
                       (with-current-buffer buf (memq sym buffer-invisibility-spec))
                       (progn (agentls--toggle-output sym)
                              (with-current-buffer buf (not (memq sym buffer-invisibility-spec)))))
                  (format "%S %S" sym (with-current-buffer buf buffer-invisibility-spec)))
      (let ((item (agentls-autonomy (list :step 3))))
        (test-check "i36/1 the mode line says the approval mode and the budget left"
                    (and (string-search "sandboxed" item) (string-search "steps left" item)) item)))

    ;; 2. The plan: three updates, one block, updated in place.
    (with-current-buffer hello (test-i36-run "I36 plan it"))
    (let* ((s (test-stream))
           (from (string-search "I36 plan it" s))
           (plans (and from (cl-count-if (lambda (l) (string-prefix-p "· plan" l))
                                         (split-string (substring s from) "\n")))))
      (test-check "i36/2 the plan is updated in place, not printed again"
                  (and (eql plans 1) (test-has "· plan (2 of 2 done)") (= (length (test-i36-lines "[x] Write B")) 1))
                  (format "%S plan blocks\n%s" plans (and from (substring s from)))))

    ;; 4. Two tasks at once: every line under its own task's name.
    (with-temp-file (expand-file-name "i36a.txt" test-ws) (insert "apple pie\n"))
    (with-temp-file (expand-file-name "i36b.txt" test-ws) (insert "banana split\n"))
    (let* ((ta (with-current-buffer hello (agentls-run "I36 task A")))
           (tb (with-current-buffer hello (agentls-run "I36 task B")))
           (_ (progn (test-wait-end ta 20) (test-wait-end tb 20)))
           (s (test-stream))
           (lines (split-string (substring s (or (string-search "I36 task A" s) 0)) "\n"))
           owner wrong)
      (dolist (l lines)
        (when (string-match "\\`\\(?:▶\\|┄\\) \\(t[0-9]+\\)" l)
          (setq owner (match-string 1 l)))
        (let ((want (cond ((or (string-search "i36a.txt" l) (string-search "Task A" l)) ta)
                          ((or (string-search "i36b.txt" l) (string-search "Task B" l)) tb))))
          (when (and want (not (equal owner want)))
            (push (format "%s under %s" l owner) wrong))))
      (test-check "i36/4 two tasks never mix unnamed"
                  (and ta tb (null wrong) (= (length (test-i36-lines "→ read_file i36a.txt")) 1))
                  (format "%S\n%s" wrong s)))

    ;; 7. The end line in words: a cancel once, no "cancelled: cancelled".
    (agentls--on-event (list :taskId "tc36" :kind "end" :ended "cancelled by you"
                             :result (list :status "cancelled" :cancelled t :reason "cancelled" :error "cancelled")))
    (test-check "i36/7 a cancel reads \"cancelled by you\""
                (and (test-has "■ tc36 cancelled by you\n") (not (test-has "cancelled: cancelled")))
                (test-stream))

    ;; Sub-agents: a helper's step shows under its task.
    (agentls--on-event (list :taskId "tn36" :kind "nested" :line "explore (where is Add) → read_file calc.go"))
    (agentls--on-event (list :taskId "tn36" :kind "nested" :line ""))
    (test-check "i36/1 a sub-agent step shows under its task"
                (and (= (length (test-i36-lines "    ↳ explore (where is Add) → read_file calc.go")) 1)
                     (= (length (test-i36-lines "┄ tn36")) 1))
                (test-stream))

    ;; 8. The task list: states in words, rewind reachable, newest first.
    (test-check "i36/8 the task list says running, needs you, done, failed and offers rewind"
                (and (equal (agentls-state-word '(:status "running")) "running")
                     (equal (agentls-state-word '(:status "ok" :outcome "awaiting review")) "needs you")
                     (equal (agentls-state-word '(:status "error")) "failed")
                     (equal (agentls-state-word '(:status "ok")) "done")
                     (member "rewind" (agentls-history-actions '(:status "ok")))
                     (equal (all-completions "" (agentls--in-order '(("t9") ("t10") ("t2")))) '("t9" "t10" "t2"))
                     (equal (alist-get 'display-sort-function
                                       (cdr (completion-metadata "" (agentls--in-order '(("b") ("a"))) nil)))
                            'identity))
                "agentls-state-word / history actions / order")

;; 5. A review buffer follows the state: after a reject it shows
    ;;    what is left (nothing), not what is gone.
    (with-temp-file (expand-file-name "r36.txt" test-ws) (insert "old text\n"))
    (let* ((rid (with-current-buffer hello (agentls-run-review "I36 review r36")))
           (_ (test-wait-end rid 20))
           (rb (agentls-review-diff rid))
           (before (with-current-buffer rb (buffer-string))))
      (agentls-reject nil rid)
      (test-check "i36/5 the review buffer redraws after a reject"
                  (and (string-search "+proposed text" before)
                       (not (string-search "+proposed text" (with-current-buffer rb (buffer-string)))))
                  (format "before:\n%s\nafter:\n%s" before (with-current-buffer rb (buffer-string)))))

    ;; 3. Isolation per task: the prefix argument runs it in a worktree.
    (let ((default-directory test-ws))
      (dolist (args '(("init" "-q") ("add" "-A") ("-c" "user.name=t" "-c" "user.email=t@t" "commit" "-q" "-m" "first")))
        (apply #'call-process "git" nil nil nil args)))
    (let* ((current-prefix-arg '(4))
           (id (cl-letf (((symbol-function 'agentls-read-task) (lambda (&rest _) "I36 worktree w36")))
                 (with-current-buffer hello (call-interactively #'agentls-run))))
           (_ (test-wait-end id 20))
           (list (append (plist-get (agentls-command "agentls.worktrees") :worktrees) nil))
           (w (car list)))
      (test-check "i36/3 a prefix argument runs the task in a worktree"
                  (and w (equal (plist-get w :taskId) id)
                       (not (file-exists-p (expand-file-name "w36.txt" test-ws))))
                  (format "%S %S" id list))
      (test-check "i36/7 the worktree picker names the task's short id"
                  (and w (string-prefix-p (concat id "  ") (agentls-worktrees--label w)))
                  (and w (agentls-worktrees--label w)))
      (let (asked)
        (cl-letf (((symbol-function 'yes-or-no-p) (lambda (q) (push q asked) nil)))
          (agentls-worktree-act "discard" w))
        (test-check "i36/7 discarding a worktree asks first, and no keeps it"
                    (and (= (length asked) 1) (string-search (concat "discard worktree " id) (car asked))
                         (= (length (append (plist-get (agentls-command "agentls.worktrees") :worktrees) nil)) 1))
                    (format "%S" asked))
        (cl-letf (((symbol-function 'yes-or-no-p) (lambda (_) t)))
          (agentls-worktree-act "discard" w)))))
  (test-conn-attention))

(defun test-i36-said (from needle)
  "The messages said since there were FROM of them that contain NEEDLE."
  (cl-remove-if-not (lambda (m) (string-search needle m))
                    (butlast test-messages from)))

(defun test-i36-away ()
  "Leave *agentls* off screen: one window, on hello.txt."
  (delete-other-windows)
  (switch-to-buffer (find-file-noselect (expand-file-name "hello.txt" test-ws))))

(defun test-conn-attention ()
  "9. A task that needs you says so where you are: with *agentls* off
screen a question says which task waits (and the task list says \"needs
you\"), an end says done, failed or needs you, and the mode line counts
it until *agentls* is on screen; with *agentls* on screen, nothing."
  (setq test-messages nil)
  (advice-add 'message :before #'test-record-message)
  (unwind-protect
      (let ((agentls-display-stream nil)
            (hello (find-file-noselect (expand-file-name "hello.txt" test-ws)))
            during)
        (test-i36-away)
        (let* ((id (cl-letf (((symbol-function 'completing-read)
                              (lambda (prompt &rest _)
                                (let ((tid (agentls--latest #'agentls--running-p)))
                                  (setq during (list :prompt prompt :id tid
                                                     :state (agentls-state-word (list :taskId tid :status "running"))
                                                     :mode-line (agentls-attention-mode-line))))
                                "Allow this change")))
                     (with-current-buffer hello (test-i36-run "I36 needs you ask"))))
               (asked (test-i36-said 0 (format "agentls: %s needs you: agentls wants to change n36.code-workspace" id)))
               (done (test-i36-said 0 (format "agentls: %s done: Asked and done." id))))
          (test-check "i36/9 a question off screen is said in the echo area and names its task"
                      (and id (= (length asked) 1) (string-search "n36.code-workspace" (or (plist-get during :prompt) "")))
                      (format "%S\n%S" during test-messages))
          (test-check "i36/9 while it waits the task list and the mode line say \"needs you\""
                      (and (equal (plist-get during :id) id) (equal (plist-get during :state) "needs you")
                           (equal (plist-get during :mode-line) "agentls[1 needs you]"))
                      (format "%S" during))
          (test-check "i36/9 its end off screen is said, and counted in the mode line"
                      (and (= (length done) 1) (equal (agentls-attention-mode-line) "agentls[1 done]")
                           (member agentls--attention-entry global-mode-string))
                      (format "%S %S" (agentls-attention-mode-line) test-messages)))
        (with-temp-file (expand-file-name "q36.txt" test-ws) (insert "old q\n"))
        (let* ((n (length test-messages))
               (rid (with-current-buffer hello (agentls-run-review "I36 notify review")))
               (_ (test-wait-end rid 20))
               (said (test-i36-said n (format "agentls: %s needs you: its changes wait for your review" rid))))
          (test-check "i36/9 a review that waits for you off screen is said" (= (length said) 1)
                      (format "%S" (butlast test-messages n)))
          (ignore-errors (agentls-reject nil rid)))
        (let* ((n (length test-messages))
               (fid (with-current-buffer hello (test-i36-run "I36 notify fail")))
               (said (test-i36-said n (format "agentls: %s failed: error" fid))))
          (test-check "i36/9 a failed task off screen is said" (= (length said) 1)
                      (format "%S" (butlast test-messages n))))
        (let ((before (agentls-attention-mode-line)))
          (agentls-show-stream)
          (test-check "i36/9 the mode line counts what you have not seen, until *agentls* is on screen"
                      (and (string-search "needs you" before) (string-search "failed" before)
                           (equal (agentls-attention-mode-line) ""))
                      (format "%S → %S" before (agentls-attention-mode-line))))
        (let* ((n (length test-messages))
               (qid (with-current-buffer hello (test-i36-run "I36 notify quiet"))))
          (test-check "i36/9 with *agentls* on screen an end says nothing more"
                      (and qid (plist-get (test-task qid) :result)
                           (null (test-i36-said n (format "agentls: %s " qid))))
                      (format "%S" (butlast test-messages n)))))
    (advice-remove 'message #'test-record-message)))

;;; conn-issue36.el ends here
