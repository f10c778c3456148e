from app.core import run

if __name__ == "__main__":
    run("{not json")
